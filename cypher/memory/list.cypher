// One agent's memories, newest first: of a store, of a day (the episodic log's day, YYYY-MM-DD); the live
// ones, only the archived ones ($archived), or both ($include_archived).
:param agent_id => 'agent-a';
:param store => null;
:param day => null;
:param archived => false;
:param include_archived => false;
:param offset => 0;
:param limit => 50;
MATCH (m:Memory {agent_id: $agent_id})
WHERE ($store IS NULL OR m.store = $store) AND ($day IS NULL OR m.day = $day)
  AND ($include_archived OR (m.archived_at IS NOT NULL) = $archived)
RETURN m {.*, embedding: null} AS memory,
       [(m)-[:MENTIONS]->(en:Entity) | en {.id, .name, .kind, .slug}] AS entities,
       [(m)-[:LEARNED_FROM]->(s:Memory) | s.id] AS learned_from
ORDER BY m.valid_from DESC, m.id DESC
SKIP $offset LIMIT $limit
