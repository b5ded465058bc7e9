// Keyword (BM25) hits among one agent's memories that are not archived, with their relevance inputs;
// $query must already be escaped (graph/db/lucene.py). Of one store when given.
:param agent_id => 'agent-a';
:param query => 'deploy';
:param store => null;
:param candidates => 200;
:param limit => 50;
CALL db.index.fulltext.queryNodes('episode_text', $query, {limit: $candidates}) YIELD node AS m, score
WHERE m:Memory AND m.agent_id = $agent_id AND ($store IS NULL OR m.store = $store)
RETURN m {.*, embedding: null} AS memory, score
ORDER BY score DESC
LIMIT $limit
