// Exact nearest neighbours over only the items the viewer may see (the fallback of a filtered
// vector search). Same score as the index: (1 + cosine) / 2.
:param label => 'Episode';
:param embedding => [];
:param k => 10;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (n:$($label))
WHERE n.embedding IS NOT NULL
  AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
WITH n, vector.similarity.cosine(n.embedding, $embedding) AS score
RETURN n.id AS id, score
ORDER BY score DESC
LIMIT $k
