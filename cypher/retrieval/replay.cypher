// Mattar-Daw replay selection over visible episodes with a gain: U = |gain| / max |gain| times
// need = 1 / hours since the episode was last replayed or accessed (the later; at least one hour); ranked by U times the
// knowledge weighting hierarchy's weight of the episode's source for $perspective (own, Grimoire's
// core, same clade, outside it; 1 without a perspective) times the Zeigarnik boost of an interrupted episode: the
// rule of graph/retrieval/weighting.py and zeigarnik.py, here so that the limit applies to the final score.
// Spaced repetition first (knowledge-crystals.md line 62, lastRippleCount): a crystal never replayed (no ripple
// count) before one that was, and fewer ripples at its last replay (a weaker consolidation) before more; that
// score orders those alike.
:param now => 1700000000000;
:param k => 5;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param agent_id => null;
:param regimes => null;
:param valid_at => null;
:param known_as_of => null;
:param levels => null;
:param perspective => 'golem-1';
:param perspective_clade => 'clade-a';
:param system_agent => 'grimoire';
:param source_weights => {own: 1.0, clade: 0.8, lethe: 0.5};
:param zeigarnik => 1.2;
MATCH (n:Episode) WHERE n.gain IS NOT NULL
  AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND ($regimes IS NULL OR n.regime IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
WITH collect(n) AS episodes, max(abs(n.gain)) AS max_gain
UNWIND episodes AS n
WITH n, CASE WHEN max_gain > 0 THEN abs(n.gain) / max_gain ELSE 0.0 END AS gain,
     toFloat($now - coalesce(CASE WHEN n.last_dreamed_at > n.last_accessed_at OR n.last_accessed_at IS NULL
                                     THEN n.last_dreamed_at ELSE n.last_accessed_at END, n.recorded_at))
       / 3600000.0 AS hours
WITH n, gain, CASE WHEN hours < 1.0 THEN 1.0 ELSE hours END AS hours,
     CASE WHEN $perspective IS NULL THEN null
          WHEN n.agent_id = $perspective THEN 'own'
          WHEN n.agent_id = $system_agent THEN 'core'
          WHEN $perspective_clade <> '' AND n.clade = $perspective_clade THEN 'clade'
          ELSE 'lethe' END AS source
WITH n, gain, hours, source, coalesce($source_weights[source], 1.0) AS source_weight,
     CASE WHEN n.interrupted THEN $zeigarnik ELSE 1.0 END AS zeigarnik
RETURN n.id AS id, gain, 1.0 / hours AS need, gain / hours AS utility, source, source_weight, zeigarnik,
       gain / hours * source_weight * zeigarnik AS score, n.last_ripple_count AS ripples
ORDER BY CASE WHEN ripples IS NULL THEN 0 ELSE 1 END, coalesce(ripples, 0), score DESC, id
LIMIT $k
