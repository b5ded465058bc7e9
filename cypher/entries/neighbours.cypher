// The entries nearest to a candidate that its agent can see (own, shared in its clade, public), with cosine
// similarity (Neo4j's score is (1 + cos) / 2) and effective confidence at $now.
:param embedding => [];
:param k => 10;
:param candidates => 100;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param now => 1700000000000;
:param floor => 0.05;
CALL db.index.vector.queryNodes('entry_embedding', $candidates, $embedding) YIELD node AS e, score
WHERE e.status IN ['active', 'candidate'] AND ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
WITH e, score,
     CASE WHEN e.half_life_ms IS NULL THEN 1.0
          ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                   / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
// The exact cosine (the index may be quantized): the admission thresholds compare against it.
RETURN e.id AS id, e.content AS content, 2 * vector.similarity.cosine(e.embedding, $embedding) - 1 AS similarity,
       CASE WHEN e.confidence * retention < $floor THEN $floor ELSE e.confidence * retention END AS effective_confidence
ORDER BY similarity DESC
LIMIT $k
