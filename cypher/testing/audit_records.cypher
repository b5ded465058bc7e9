// Every audit record, oldest first, for tests that read back what was recorded and its revert operations.
MATCH (a:AuditRecord)
RETURN a.id AS id, a.at AS at, a.action AS action, a.actor AS actor, a.agent_id AS agent_id,
       a.target_ids AS target_ids, a.summary AS summary, a.revert AS revert
ORDER BY a.at, a.id
