// Vector candidates over episodes and entries the viewer may see and the filters allow, best
// first. The index is over-fetched ($candidates) because the filters run after it.
:param embedding => [];
:param candidates => 200;
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
CALL (){
  WITH 1 AS one WHERE 'Episode' IN $labels
  CALL db.index.vector.queryNodes('episode_embedding', $candidates, $embedding) YIELD node AS n, score
  RETURN n, score
  UNION ALL
  WITH 1 AS one WHERE 'Entry' IN $labels
  CALL db.index.vector.queryNodes('entry_embedding', $candidates, $embedding) YIELD node AS n, score
  RETURN n, score
}
WITH n, score
WHERE ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
  AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
// Exact cosine of what the (quantized) index found: the order among candidates is exact. The
// vectors are read here, not returned: shipping them cost more than anything else.
WITH n, vector.similarity.cosine(n.embedding, $embedding) * 2 - 1 AS score
ORDER BY score DESC
LIMIT $top
RETURN n.id AS id, score, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted, .type, .outcome, .tick, .provenance, .dream_validated} AS item
