// The members of an exact ranking (graph/retrieval/exact.py): every item the caller may see under the filters, with
// its recorded time (what keys its vector, length and turn before in the replica's memory), and the counter every
// write that changes a stored vector or a turn's predecessor in place moves (`epoch`). No vector is read here: the
// replica holds them and ranks them itself. Visibility is decided here, in the query that reads; the visible set as
// in vector_exact.cypher. One row of lists: a row per item costs the driver more than the ranking. Each seek filters
// and collects on its own and the lists are joined at the end: rows carried up through seven UNIONs and a DISTINCT cost
// the database twice as much (an item seen by two seeks, the caller's own shared one, comes twice; the replica keeps one).
:param labels => ['Episode', 'Entry'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param agent_id => null;
:param categories => null;
:param statuses => ['active', 'candidate'];
:param regimes => null;
:param valid_at => null;
:param known_as_of => null;
:param levels => null;
CALL () {
  MATCH (n:Episode) USING INDEX n:Episode(agent_id)
  WHERE n.agent_id = CASE WHEN 'Episode' IN $labels AND $admin THEN $agent_id END
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of) AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  RETURN collect(n.id) AS i, collect(coalesce(n.recorded_at, 0)) AS a
  UNION ALL
  MATCH (n:Episode) USING INDEX n:Episode(agent_id)
  WHERE n.agent_id = CASE WHEN 'Episode' IN $labels AND NOT $admin AND ($agent_id IS NULL OR $agent_id = $viewer) THEN $viewer END
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of) AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  RETURN collect(n.id) AS i, collect(coalesce(n.recorded_at, 0)) AS a
  UNION ALL
  MATCH (n:Episode) USING INDEX n:Episode(scope, clade)
  WHERE n.scope = CASE WHEN 'Episode' IN $labels AND NOT $admin THEN 'shared' END AND n.clade = $clade AND ($agent_id IS NULL OR n.agent_id = $agent_id)
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of) AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  RETURN collect(n.id) AS i, collect(coalesce(n.recorded_at, 0)) AS a
  UNION ALL
  MATCH (n:Episode) USING INDEX n:Episode(scope)
  WHERE n.scope = CASE WHEN 'Episode' IN $labels AND NOT $admin THEN 'public' END AND ($agent_id IS NULL OR n.agent_id = $agent_id)
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of) AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  RETURN collect(n.id) AS i, collect(coalesce(n.recorded_at, 0)) AS a
  UNION ALL
  MATCH (n:Entry) USING INDEX n:Entry(agent_id)
  WHERE n.agent_id = CASE WHEN 'Entry' IN $labels AND $admin THEN $agent_id END
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of) AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  RETURN collect(n.id) AS i, collect(coalesce(n.recorded_at, 0)) AS a
  UNION ALL
  MATCH (n:Entry) USING INDEX n:Entry(agent_id)
  WHERE n.agent_id = CASE WHEN 'Entry' IN $labels AND NOT $admin AND ($agent_id IS NULL OR $agent_id = $viewer) THEN $viewer END
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of) AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  RETURN collect(n.id) AS i, collect(coalesce(n.recorded_at, 0)) AS a
  UNION ALL
  MATCH (n:Entry) USING INDEX n:Entry(scope, clade)
  WHERE n.scope = CASE WHEN 'Entry' IN $labels AND NOT $admin THEN 'shared' END AND n.clade = $clade AND ($agent_id IS NULL OR n.agent_id = $agent_id)
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of) AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  RETURN collect(n.id) AS i, collect(coalesce(n.recorded_at, 0)) AS a
  UNION ALL
  MATCH (n:Entry) USING INDEX n:Entry(scope)
  WHERE n.scope = CASE WHEN 'Entry' IN $labels AND NOT $admin THEN 'public' END AND ($agent_id IS NULL OR n.agent_id = $agent_id)
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of) AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  RETURN collect(n.id) AS i, collect(coalesce(n.recorded_at, 0)) AS a
}
WITH collect(i) AS ii, collect(a) AS aa
RETURN reduce(x = [], l IN ii | x + l) AS ids, reduce(x = [], l IN aa | x + l) AS at,
       coalesce(head(COLLECT { MATCH (c:VectorEpoch {id: 'vectors'}) RETURN c.n }), 0) AS epoch
