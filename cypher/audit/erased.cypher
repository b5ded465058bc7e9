// The agent's erasures (graph/audit/erasure.py): each permanent delete's record, with the items it erased (its
// targets): a rollback restores none of them.
:param agent_id => 'agent-a';
:param action => 'memory.delete';
MATCH (a:AuditRecord) WHERE a.agent_id = $agent_id AND a.action = $action
RETURN a.id AS record, a.at AS at, a.actor AS actor, a.target_ids AS ids
ORDER BY a.at
