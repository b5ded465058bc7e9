// The exact ranking's candidates (items.cypher) and the graph backend's neighbours of the strongest hits
// (graph_neighbours.cypher) in one statement: both are read once the vector ranking is known, and one round trip costs
// the database and the driver less than two side by side (graph/retrieval/context.py ONE_GRAPH_READ, issue 41). Each
// part is its own statement's text, unchanged: the visibility rule stays inside the query that reads
// (tests/unit/test_items_neighbours.py keeps the copies the same). One row: the items (id, kind, item) and the
// neighbours (id, score, seed_rank, via, order_key, kind, item), best first.
:param ids => ['ep-2'];
:param hits => ['ep-1'];
:param focus => [];
:param embedding => [];
:param top => 20;
:param labels => ['Episode', 'Entry'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param categories => null;
:param statuses => ['active', 'candidate'];
:param regimes => null;
:param valid_at => null;
:param known_as_of => null;
:param levels => null;
:param agent_id => null;
CALL () {
  UNWIND $ids AS id
  CALL (id) {
    MATCH (n:Episode {id: id}) RETURN n
    UNION
    MATCH (n:Entry {id: id}) RETURN n
  }
  WITH n
  WHERE $admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)
  RETURN collect({id: n.id, kind: CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END, item: n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted}}) AS items
}
CALL () {
  UNWIND range(0, size($hits) - 1) AS seed_rank
  CALL (seed_rank) {
    MATCH (h:Episode {id: $hits[seed_rank]}) RETURN h
    UNION
    MATCH (h:Entry {id: $hits[seed_rank]}) RETURN h
  }
  CALL (h) {
    MATCH p = (h:Episode)-[:FOLLOWS*1..2]-(n:Episode)
    WHERE n <> h AND (size($focus) = 0 OR EXISTS { (n)-[:MENTIONS]->(f:Entity) WHERE f.id IN $focus })
    RETURN n, 'thread' AS via, length(p) AS hops
    UNION
    MATCH (h:Episode)<-[:DERIVED_FROM]-(n:Entry) RETURN n, 'derived' AS via, 1 AS hops
    UNION
    MATCH (h:Entry)-[:DERIVED_FROM]->(n:Episode) RETURN n, 'source' AS via, 1 AS hops
    UNION
    MATCH (h:Entry)-[:CAUSES]-(n:Entry) RETURN n, 'causal' AS via, 1 AS hops
  }
  WITH n, min(seed_rank * 10 + hops) AS order_key, min(seed_rank) AS seed_rank, collect(DISTINCT via) AS via
  WHERE NOT n.id IN $hits
    AND any(l IN labels(n) WHERE l IN $labels)
    AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
    AND ($agent_id IS NULL OR n.agent_id = $agent_id)
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
    AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  WITH n, order_key, seed_rank, via, vector.similarity.cosine(n.embedding, $embedding) * 2 - 1 AS score
  ORDER BY order_key, score DESC
  LIMIT $top
  RETURN collect({id: n.id, score: score, seed_rank: seed_rank, via: via, order_key: order_key, kind: CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END, item: n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted}}) AS neighbours
}
RETURN items, neighbours
