// Episodes matching a Lucene query (BM25), best first.
:param query => 'support group';
:param k => 10;
CALL db.index.fulltext.queryNodes('episode_text', $query, {limit: $k}) YIELD node, score
RETURN node.id AS id, node.text AS text, score
ORDER BY score DESC
