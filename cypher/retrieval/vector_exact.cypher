// The exact fallback of vector.cypher: cosine against every item that passes the filters, used
// when the filters leave the approximate index with too few results.
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
:param agent_id => null;
MATCH (n) WHERE (n:Episode OR n:Entry) AND any(l IN labels(n) WHERE l IN $labels)
  AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
  AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND n.embedding IS NOT NULL
WITH n, vector.similarity.cosine(n.embedding, $embedding) * 2 - 1 AS score
ORDER BY score DESC
LIMIT $top
RETURN n.id AS id, score, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .gain} AS item
