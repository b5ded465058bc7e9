// Entries the viewer may see, by category, status, regime, owner, valid time, recorded time and minimum effective
// confidence, most confident first. Known at $known_at, each entry reads as it was recorded then: its text,
// confidence, scope and conditions from its kept version valid then (the earliest version replaced after that
// time, cypher/audit/keep_versions.cypher), its own state when nothing changed since; the filters and the
// viewer's rule apply to that state too.
:param agent_id => null;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param category => null;
:param status => null;
:param regime => null;
:param valid_at => null;
:param known_at => null;
:param min_confidence => null;
:param now => 1700000000000;
:param floor => 0.05;
:param offset => 0;
:param limit => 50;
MATCH (e:Entry)
WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
  AND ($agent_id IS NULL OR e.agent_id = $agent_id)
  AND ($category IS NULL OR e.category = $category)
  AND ($status IS NULL OR e.status = $status)
  AND ($valid_at IS NULL OR (e.valid_from <= $valid_at AND (e.valid_until IS NULL OR e.valid_until > $valid_at)))
  AND ($known_at IS NULL OR (e.recorded_at <= $known_at AND (e.recorded_until IS NULL OR e.recorded_until > $known_at)))
WITH e, CASE WHEN $known_at IS NULL THEN null
             ELSE reduce(found = null, x IN [(e)-[:PREVIOUS_VERSION]->(v:EntryVersion) WHERE v.valid_until > $known_at | v] |
                         CASE WHEN found IS NULL OR x.revision < found.revision THEN x ELSE found END) END AS v
WITH e, CASE WHEN v IS NULL THEN apoc.map.removeKey(properties(e), 'embedding')
             ELSE apoc.map.removeKey(e {.*, content: v.content, confidence: v.confidence, scope: v.scope,
                                        clade: v.clade, market_regime: v.market_regime, tags: v.tags,
                                        revision: v.revision}, 'embedding') END AS s
WHERE ($admin OR s.agent_id = $viewer OR s.scope = 'public' OR (s.scope = 'shared' AND s.clade = $clade))
  AND ($regime IS NULL OR s.market_regime = $regime)
WITH e, s,
     CASE WHEN e.half_life_ms IS NULL THEN 1.0
          ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                   / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
WITH e, s, CASE WHEN s.confidence * retention < $floor THEN $floor ELSE s.confidence * retention END AS effective
WHERE $min_confidence IS NULL OR effective >= $min_confidence
RETURN s AS entry, effective AS effective_confidence
ORDER BY effective DESC, e.id
SKIP $offset LIMIT $limit
