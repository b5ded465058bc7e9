// For each of a batch of candidates of one viewer, the entries nearest to it that the viewer can see
// (own, shared in its clade, public), with cosine similarity (Neo4j's score is (1 + cos) / 2) and effective
// confidence at $now. One round trip per batch, not per candidate (the Curator admits hundreds at a time).
:param items => [{i: 0, embedding: []}];
:param k => 10;
:param candidates => 100;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param now => 1700000000000;
:param floor => 0.05;
UNWIND $items AS q
CALL (q) {
  CALL db.index.vector.queryNodes('entry_embedding', $candidates, q.embedding) YIELD node AS e, score
  WHERE e.status IN ['active', 'candidate'] AND ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
  // The index's order (its vectors may be quantized) picks twice as many as wanted; the exact cosine
  // orders those (the admission thresholds compare against it) without reading every candidate's vector.
  WITH e, score ORDER BY score DESC LIMIT 2 * $k
  WITH e,
       CASE WHEN e.half_life_ms IS NULL THEN 1.0
            ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                     / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
  WITH e, retention, 2 * vector.similarity.cosine(e.embedding, q.embedding) - 1 AS similarity
  ORDER BY similarity DESC
  LIMIT $k
  RETURN collect({id: e.id, content: e.content, similarity: similarity, agent_id: e.agent_id, scope: e.scope,
                  effective_confidence: CASE WHEN e.confidence * retention < $floor THEN $floor
                                             ELSE e.confidence * retention END}) AS neighbours
}
RETURN q.i AS i, neighbours
