// Phase 1 of a reflection: the agent's memories recorded since the last reflection (not archived), oldest
// first, with the entities each names.
:param agent_id => 'agent-a';
:param since => 0;
:param limit => 2000;
MATCH (m:Memory:Episode)
WHERE m.agent_id = $agent_id AND m.recorded_at > $since
RETURN m {.*, embedding: null} AS memory, [(m)-[:MENTIONS]->(en:Entity) | en.id] AS entities
ORDER BY m.valid_from, m.id
LIMIT $limit
