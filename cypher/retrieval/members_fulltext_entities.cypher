// members_fulltext.cypher (the exact ranking's members and BM25's first ask) with the entities whose names match words
// of the query (entity_candidates.cypher, its $query named $entity_query here): a caller whose reach is ranked exactly
// needs all three before its query is embedded, and one round trip costs the database and the driver less than two
// side by side (graph/retrieval/context.py ONE_ENTITY_READ, issue 41). Each part is its own statement's text,
// unchanged: the visibility rules stay inside the query that reads (tests/unit/test_members_fulltext.py keeps the
// copies the same). One row: members_fulltext's, and the entities (id, name, symbol, aliases, score) best first.
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
:param query => '+(text:(oracle) content:(oracle)) +(agent_id:"golem-1" scope:public (+scope:shared +clade:"clade-a"))^0';
:param top => 20;
:param candidates => 200;
:param memories => false;
:param entity_query => 'Caroline';
:param limit => 25;
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
WITH reduce(x = [], l IN ii | x + l) AS ids, reduce(x = [], l IN aa | x + l) AS at
CALL () {
  CALL (){
    WITH 1 AS one WHERE 'Episode' IN $labels
    CALL db.index.fulltext.queryNodes('episode_search', $query, {limit: $candidates}) YIELD node AS n, score
    RETURN n, score
    UNION ALL
    WITH 1 AS one WHERE 'Entry' IN $labels
    CALL db.index.fulltext.queryNodes('entry_search', $query, {limit: $candidates}) YIELD node AS n, score
    RETURN n, score
  }
  WITH n, score
  WHERE ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
    AND ($agent_id IS NULL OR n.agent_id = $agent_id)
    AND (NOT $memories OR n:Memory)
    AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
    AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
    AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
    AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
    AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
  WITH n, score
  ORDER BY score DESC
  LIMIT $top
  RETURN collect({id: n.id, score: score, kind: CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END, item: n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted}}) AS hits
}
CALL () {
  CALL db.index.fulltext.queryNodes('entity_names', $entity_query) YIELD node AS en, score
  WITH en, score
  WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
  WITH en, score
  LIMIT $limit
  RETURN collect({id: en.id, name: en.name, symbol: en.symbol, aliases: en.aliases, score: score}) AS entities
}
RETURN ids, at, coalesce(head(COLLECT { MATCH (c:VectorEpoch {id: 'vectors'}) RETURN c.n }), 0) AS epoch, hits, entities
