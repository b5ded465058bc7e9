// One owner's records of one month, oldest first, a page at a time after a cursor (at, id): what a monthly
// digest summarises (graph/audit/retention.py). The (agent_id, at) index serves an agent, the `at` one the
// service's own records.
:param agent_id => 'agent-a';
:param start => 1767225600000;
:param end => 1769904000000;
:param after_at => -1;
:param after_id => '';
:param limit => 5000;
MATCH (a:AuditRecord)
WHERE a.at >= $start AND a.at < $end AND a.at >= $after_at
  AND (a.agent_id = $agent_id OR ($agent_id IS NULL AND a.agent_id IS NULL))
  AND (a.at > $after_at OR a.id > $after_id)
RETURN a.id AS id, a.at AS at, a.action AS action, a.verb AS verb, a.target_ids AS target_ids, a.summary AS summary
ORDER BY a.at, a.id
LIMIT $limit
