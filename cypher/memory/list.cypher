// One agent's memories, newest first: of a store, of a day (the episodic log's day, YYYY-MM-DD), archived
// or not.
:param agent_id => 'agent-a';
:param store => null;
:param day => null;
:param archived => false;
:param offset => 0;
:param limit => 50;
MATCH (m:Memory {agent_id: $agent_id})
WHERE ($store IS NULL OR m.store = $store) AND ($day IS NULL OR m.day = $day)
  AND ($archived OR m.archived_at IS NULL)
RETURN m {.*, embedding: null} AS memory,
       [(m)-[:MENTIONS]->(en:Entity) | en {.id, .name, .kind, .slug}] AS entities,
       [(m)-[:LEARNED_FROM]->(s:Memory) | s.id] AS learned_from
ORDER BY m.valid_from DESC, m.id DESC
SKIP $offset LIMIT $limit
