// Up to $batch of one owner's records of one month deleted (a month folded into its digest); how many. The
// version chain keeps every state the records named (graph/audit/versions.py).
:param agent_id => 'agent-a';
:param start => 1767225600000;
:param end => 1769904000000;
:param batch => 1000;
MATCH (a:AuditRecord)
WHERE a.at >= $start AND a.at < $end
  AND (a.agent_id = $agent_id OR ($agent_id IS NULL AND a.agent_id IS NULL))
WITH a LIMIT $batch
DELETE a
RETURN count(*) AS deleted
