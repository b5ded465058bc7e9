// Expansion (graph/retrieval/neighbourhood.py): the items around the first fused candidates $hits, their turns at
// most $hops FOLLOWS steps either way and, when $entities, the items mentioning an entity a hit mentions (one
// mentioned more than $max_mentions times is a hub and is skipped). Only what the viewer may see under the filters
// is returned (the same rule as every backend's): an item is reached through a visible hit, and is itself checked.
// Ranked by the best rank of the hit it hangs from and its distance, then by similarity to the query.
:param hits => ['ep-1'];
:param hops => 1;
:param entities => true;
:param max_mentions => 100;
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
UNWIND range(0, size($hits) - 1) AS seed_rank
CALL (seed_rank) {
  MATCH (h:Episode {id: $hits[seed_rank]}) RETURN h
  UNION
  MATCH (h:Entry {id: $hits[seed_rank]}) RETURN h
}
CALL (h) {
  MATCH p = (h:Episode)-[:FOLLOWS*1..8]-(n:Episode)
  WHERE length(p) <= $hops
  RETURN n, 'thread' AS via, length(p) AS hops
  UNION
  MATCH (h)-[:MENTIONS]->(x:Entity)<-[:MENTIONS]-(n)
  WHERE $entities AND n <> h AND COUNT { (x)<-[:MENTIONS]-() } <= $max_mentions
  RETURN n, 'entity' AS via, 1 AS hops
}
WITH n, min(seed_rank * 10 + hops) AS order_key, collect(DISTINCT via) AS via
WHERE NOT n.id IN $hits
  AND any(l IN labels(n) WHERE l IN $labels)
  AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
  AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
WITH n, order_key, via, vector.similarity.cosine(n.embedding, $embedding) * 2 - 1 AS score
ORDER BY order_key, score DESC
LIMIT $top
RETURN n.id AS id, score, via, order_key, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted} AS item
