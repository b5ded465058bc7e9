// Tests: one agent's audit records moved back in time, the oldest to $to, the rest keeping their spacing (so
// retention has old months to fold).
:param agent_id => 'agent-a';
:param to => 1768471200000;
MATCH (a:AuditRecord {agent_id: $agent_id})
WITH min(a.at) AS first
MATCH (a:AuditRecord {agent_id: $agent_id})
SET a.at = $to + (a.at - first)
RETURN count(a) AS aged
