// The k nearest items the viewer may see, from a native vector index. The index is asked for
// $candidates (more than k) because the visibility filter runs after it; see graph/search.py
// for the exact fallback when too few survive.
:param index => 'episode_embedding';
:param embedding => [];
:param k => 10;
:param candidates => 100;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
CALL db.index.vector.queryNodes($index, $candidates, $embedding) YIELD node AS n, score
WHERE $admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)
// Exact (1 + cosine) / 2 of what the (quantized) index found, the index's own scale.
RETURN n.id AS id, vector.similarity.cosine(n.embedding, $embedding) AS score
ORDER BY score DESC
LIMIT $k
