// The owners (an agent's id; null for the service's own records) with audit records before a time, and each
// one's oldest record: what the retention job (graph/audit/retention.py) has months to fold for. The range index
// on `at` finds the old records.
:param before => 1770000000000;
MATCH (a:AuditRecord)
WHERE a.at < $before
RETURN a.agent_id AS agent_id, min(a.at) AS first
ORDER BY agent_id
