// Agents a scheduled reflection may be due for (all, or the one named): no reflection pending, memories
// recorded since their last one (how many, and when that was).
:param agent_id => null;
MATCH (a:Agent)
WHERE $agent_id IS NULL OR a.id = $agent_id
OPTIONAL MATCH (r:MemoryReflection {agent_id: a.id})
WITH a, max(r.recorded_at) AS last, count(CASE WHEN r.status = 'pending' THEN 1 END) AS pending
WHERE pending = 0
CALL (a, last) {
  MATCH (m:Memory:Episode)
  WHERE m.agent_id = a.id AND m.recorded_at > coalesce(last, 0)
  RETURN count(m) AS new
}
WITH a, last, new WHERE new > 0
RETURN a.id AS agent_id, a.timezone AS timezone, last, new
ORDER BY agent_id
