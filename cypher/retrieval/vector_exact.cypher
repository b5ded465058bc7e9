// The exact fallback of vector.cypher: cosine against every item that passes the filters, used
// when the caller sees few items (graph/retrieval/reach.py) or the filters leave the approximate
// index with too few. The visible set is gathered through the ownership and scope indexes, one
// branch each, so the cost follows what the caller may see, not the size of the database.
:param embedding => [];
:param top => 20;
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
  RETURN n
  UNION
  MATCH (n:Episode) USING INDEX n:Episode(agent_id)
  WHERE n.agent_id = CASE WHEN 'Episode' IN $labels AND NOT $admin AND ($agent_id IS NULL OR $agent_id = $viewer) THEN $viewer END
  RETURN n
  UNION
  MATCH (n:Episode) USING INDEX n:Episode(scope, clade)
  WHERE n.scope = CASE WHEN 'Episode' IN $labels AND NOT $admin THEN 'shared' END AND n.clade = $clade AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  RETURN n
  UNION
  MATCH (n:Episode) USING INDEX n:Episode(scope)
  WHERE n.scope = CASE WHEN 'Episode' IN $labels AND NOT $admin THEN 'public' END AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  RETURN n
  UNION
  MATCH (n:Entry) USING INDEX n:Entry(agent_id)
  WHERE n.agent_id = CASE WHEN 'Entry' IN $labels AND $admin THEN $agent_id END
  RETURN n
  UNION
  MATCH (n:Entry) USING INDEX n:Entry(agent_id)
  WHERE n.agent_id = CASE WHEN 'Entry' IN $labels AND NOT $admin AND ($agent_id IS NULL OR $agent_id = $viewer) THEN $viewer END
  RETURN n
  UNION
  MATCH (n:Entry) USING INDEX n:Entry(scope, clade)
  WHERE n.scope = CASE WHEN 'Entry' IN $labels AND NOT $admin THEN 'shared' END AND n.clade = $clade AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  RETURN n
  UNION
  MATCH (n:Entry) USING INDEX n:Entry(scope)
  WHERE n.scope = CASE WHEN 'Entry' IN $labels AND NOT $admin THEN 'public' END AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  RETURN n
}
// Every branch is an index seek whose value is null unless the branch applies (by $admin, $labels,
// $agent_id), so no plan can run a branch for nothing; the admin without an agent filter, who sees
// everything, uses the _all variant. Each branch is one clause of the visibility predicate, so the
// union is what the caller may see:
// ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)).
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
