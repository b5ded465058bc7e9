// Candidates from the times a query names (graph/retrieval/query_understanding.py): the visible
// items whose valid_from falls in one of the $windows ([start, end) in epoch ms; through the
// valid_from range indexes), ranked by similarity to the query. For a conversation turn valid_from
// is the date of its session: "what did X do on October 13, 2023" looks among that day's turns.
:param windows => [[1697155200000, 1697760000000]];
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
UNWIND $windows AS w
CALL (w) {
  MATCH (n:Episode) WHERE 'Episode' IN $labels AND n.valid_from >= w[0] AND n.valid_from < w[1]
  RETURN n
  UNION
  MATCH (n:Entry) WHERE 'Entry' IN $labels AND n.valid_from >= w[0] AND n.valid_from < w[1]
  RETURN n
}
WITH DISTINCT n
WHERE ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
  AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
WITH n, vector.similarity.cosine(n.embedding, $embedding) * 2 - 1 AS score
WHERE score IS NOT NULL
ORDER BY score DESC, n.id
LIMIT $top
RETURN n.id AS id, score, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted} AS item
