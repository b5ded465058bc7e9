// vector_exact.cypher for the admin without an agent filter, who sees every item: a scan of the
// searched labels, used when the store is small or the filters leave the index with too few.
:param embedding => [];
:param top => 20;
:param labels => ['Episode', 'Entry'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => true;
:param agent_id => null;
:param categories => null;
:param statuses => ['active', 'candidate'];
:param regimes => null;
:param valid_at => null;
:param known_as_of => null;
:param levels => null;
CALL () {
  WITH 1 AS one WHERE 'Episode' IN $labels
  MATCH (n:Episode)
  RETURN n
  UNION
  WITH 1 AS one WHERE 'Entry' IN $labels
  MATCH (n:Entry)
  RETURN n
}
WITH n WHERE $admin
// Rank first, then filter best first until $top pass: the filters read a few properties of the
// items near the top, not of the whole visible set.
WITH n, vector.similarity.cosine(n.embedding, $embedding) AS similarity
WHERE similarity IS NOT NULL
ORDER BY similarity DESC
WITH n, similarity
WHERE (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
  AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
WITH n, similarity * 2 - 1 AS score
LIMIT $top
RETURN n.id AS id, score, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted, .type, .outcome, .tick, .provenance, .dream_validated} AS item
