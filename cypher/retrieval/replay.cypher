// Mattar-Daw replay selection over visible episodes with a gain: U = |gain| / max |gain| times
// need = 1 / hours since the episode was last replayed (at least one hour).
:param now => 1700000000000;
:param k => 5;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param agent_id => null;
:param regimes => null;
:param valid_at => null;
:param known_as_of => null;
MATCH (n:Episode) WHERE n.gain IS NOT NULL
  AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND ($regimes IS NULL OR n.regime IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
WITH collect(n) AS episodes, max(abs(n.gain)) AS max_gain
UNWIND episodes AS n
WITH n, CASE WHEN max_gain > 0 THEN abs(n.gain) / max_gain ELSE 0.0 END AS gain,
     toFloat($now - coalesce(n.last_accessed_at, n.recorded_at)) / 3600000.0 AS hours
WITH n, gain, CASE WHEN hours < 1.0 THEN 1.0 ELSE hours END AS hours
RETURN n.id AS id, gain, 1.0 / hours AS need, gain / hours AS utility
ORDER BY utility DESC, id
LIMIT $k
