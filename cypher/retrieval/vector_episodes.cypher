// The k episodes nearest to a query vector (cosine), from the native vector index.
// HNSW is approximate: asking it for more candidates than needed ($candidates >= $k)
// widens its search, and the best k of those match an exact search.
:param k => 10;
:param candidates => 100;
:param embedding => [];
CALL db.index.vector.queryNodes('episode_embedding', $candidates, $embedding) YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC
LIMIT $k
