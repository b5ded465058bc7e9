// Test-only: the audit records of one action, oldest first.
:param action => 'entry.scope';
MATCH (a:AuditRecord {action: $action})
RETURN a.agent_id AS agent_id, a.summary AS summary, a.revert AS revert, a.at AS at
ORDER BY a.at
