// Graph candidates from entities: episodes mentioning an entity within two hops (facts valid at
// $block, or believed now when $block is null) of the seed entities (named in the query, or the
// agent's positions), and entries derived from those episodes; ranked by similarity to the query
// times the topology curiosity modifier of the distance (0 or 1 hop 1.0, 2 hops 0.5). Each row
// says through which entity, and how far from a seed, it came.
// Only what the viewer may see is walked: seeds it may see, facts it may see (so every entity
// reached is visible: a visible fact touches it), and episodes it may see (an explanation "via
// entity" would otherwise tell what an invisible episode mentions).
// Seeds mentioned by more than $max_mentions episodes are skipped.
:param seeds => ['person:caroline'];
:param block => null;
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
MATCH (en:Entity) WHERE en.id IN $seeds
  AND ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
  AND COUNT { (en)<-[:MENTIONS]-() } <= $max_mentions  // a hub says as little as a stop word
WITH en AS seed
CALL (seed) {
  RETURN seed AS x, 0 AS distance
  UNION
  MATCH (seed)-[r]-(x:Entity)
  WHERE r.fact_id IS NOT NULL AND r.expired_at IS NULL
    AND ($block IS NULL OR (r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)))
    AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
  RETURN x, 1 AS distance
  UNION
  MATCH (seed)-[r1]-(:Entity)-[r2]-(x:Entity)
  WHERE r1.fact_id IS NOT NULL AND r1.expired_at IS NULL AND r2.fact_id IS NOT NULL AND r2.expired_at IS NULL
    AND ($block IS NULL OR (r1.valid_from <= $block AND (r1.valid_to IS NULL OR r1.valid_to > $block)
                            AND r2.valid_from <= $block AND (r2.valid_to IS NULL OR r2.valid_to > $block)))
    AND all(r IN [r1, r2] WHERE $admin OR r.agent_id = $viewer OR r.scope = 'public'
                                OR (r.scope = 'shared' AND r.clade = $clade))
  RETURN x, 2 AS distance
}
WITH x, min(distance) AS distance
MATCH (ep:Episode)-[:MENTIONS]->(x)
WHERE $admin OR ep.agent_id = $viewer OR ep.scope = 'public' OR (ep.scope = 'shared' AND ep.clade = $clade)
CALL (ep) {
  RETURN ep AS n
  UNION
  MATCH (n:Entry)-[:DERIVED_FROM]->(ep)
  RETURN n
}
WITH n, x, distance ORDER BY distance, x.id
WITH n, head(collect(x.id)) AS entity, min(distance) AS distance
WHERE any(l IN labels(n) WHERE l IN $labels)
  AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
  AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
WITH n, entity, distance,
     vector.similarity.cosine(n.embedding, $embedding) * CASE distance WHEN 2 THEN 0.5 ELSE 1.0 END AS score
ORDER BY score DESC
LIMIT $top
RETURN n.id AS id, score, entity, distance, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted} AS item
