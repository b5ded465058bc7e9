// The configuration of one agent, or of every agent ($agent_id null), with the checksum the service wrote when it
// registered it: graph/audit/alerts.py verifies it at start-up and at session start, as it does the critical
// blocks.
:param agent_id => null;
MATCH (a:Agent)
WHERE ($agent_id IS NULL OR a.id = $agent_id)
// Every property: graph/audit/alerts.py CONFIGURATION says which of them the checksum covers.
RETURN a.id AS id, a.id AS agent_id, properties(a) AS configuration, a.checksum AS checksum
ORDER BY a.id
