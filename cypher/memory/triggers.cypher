// Procedures of one agent whose trigger matches the query (BM25 on the trigger text).
:param agent_id => 'agent-a';
:param query => 'deploy';
:param limit => 10;
CALL db.index.fulltext.queryNodes('memory_trigger', $query, {limit: 200}) YIELD node AS m, score
WHERE m:Episode AND m.agent_id = $agent_id
RETURN m {.*, embedding: null} AS memory, score
ORDER BY score DESC
LIMIT $limit
