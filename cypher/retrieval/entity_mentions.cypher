// Candidates for each entity a query names (graph/retrieval/understood.py): per entity, the visible
// episodes that mention it and the entries derived from them, ranked by similarity to the query.
// The query's search joined through the graph to what it is about: "what books has Melanie read"
// looks among the turns that mention Melanie, "did Jon and Gina both ..." among Jon's and Gina's.
// An entity mentioned more than $max_mentions times is skipped (the cost follows its mentions).
:param entities => ['person:caroline'];
:param max_mentions => 5000;
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
UNWIND $entities AS entity_id
MATCH (en:Entity {id: entity_id})
WHERE COUNT { (en)<-[:MENTIONS]-() } <= $max_mentions
CALL (en) {
  MATCH (ep:Episode)-[:MENTIONS]->(en)
  CALL (ep) {
    RETURN ep AS n
    UNION
    MATCH (n:Entry)-[:DERIVED_FROM]->(ep)
    RETURN n
  }
  WITH DISTINCT n
  WHERE any(l IN labels(n) WHERE l IN $labels)
    AND ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
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
  RETURN n, score
}
RETURN en.id AS entity, n.id AS id, score, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted} AS item
