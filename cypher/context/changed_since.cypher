// Whether what an agent's kept workspace was built from may have changed since $since (taken a moment before it
// was built: a write whose record is stamped before $since but commits after the build is still seen):
// - a change in the audit trail by the agent, an agent of its clade or the service itself (decay, the Curator),
//   other than the Governor's own decision records;
// - a change to any item the workspace holds, by anyone (an edit, a vote, a scope change), or to a causal link;
// - a Beta belief of the agent that crossed the filter's threshold (a category comes in or goes out);
// - an episode or entry the agent may see written since.
:param since => 1700000000000;
:param agent => 'golem-1';
:param agent_clade => '';
:param ids => [];
:param admin => false;
:param viewer => 'golem-1';
:param clade => '';
RETURN EXISTS {
         MATCH (r:AuditRecord) WHERE r.at > $since
           AND ((r.action <> 'context.feedback'
                 AND (r.agent_id IS NULL OR r.agent_id = $agent
                      OR ($agent_clade <> '' AND EXISTS { MATCH (w:Agent {id: r.agent_id}) WHERE w.clade = $agent_clade })))
                OR r.action STARTS WITH 'causal.'
                OR any(t IN r.target_ids WHERE t IN $ids))
       }
    OR EXISTS {
         MATCH (b:ContextBelief) WHERE b.agent_id = $agent AND b.regime IS NOT NULL AND b.crossed_at > $since
       }
    OR EXISTS {
         MATCH (n:Episode) WHERE n.recorded_at > $since
           AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
       }
    OR EXISTS {
         MATCH (n:Entry) WHERE n.recorded_at > $since
           AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
       } AS changed
