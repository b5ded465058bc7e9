// Whether what an agent's kept workspace was built from may have changed since $since: a change recorded in the
// audit trail by the agent, by an agent of its clade or by the service itself (decay, the Curator; not the
// Governor's own feedback records), or an episode or entry the agent may see written since.
:param since => 1700000000000;
:param agent => 'golem-1';
:param agent_clade => '';
:param admin => false;
:param viewer => 'golem-1';
:param clade => '';
RETURN EXISTS {
         MATCH (r:AuditRecord) WHERE r.at > $since AND r.action <> 'context.feedback'
           AND (r.agent_id IS NULL OR r.agent_id = $agent
                OR ($agent_clade <> '' AND EXISTS { MATCH (w:Agent {id: r.agent_id}) WHERE w.clade = $agent_clade }))
       }
    OR EXISTS {
         MATCH (n:Episode) WHERE n.recorded_at > $since
           AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
       }
    OR EXISTS {
         MATCH (n:Entry) WHERE n.recorded_at > $since
           AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
       } AS changed
