// The exact vector ranking with the turn before as context for short turns (issue 22: a short reply,
// "Yes, last week!", says little on its own): an episode of at most $short_chars characters that
// follows another is scored by the cosine of the query with the sum of its embedding and $weight x
// that of the turn before, cos(q, a + w b) = (q.a + w q.b) / sqrt(1 + w^2 + 2 w a.b) for unit vectors
// (each cosine read with vector.similarity.cosine, no vector arithmetic). Everything else by its own
// cosine. Exact over what the caller sees. The service ranks this way in the replica, from the vectors it holds
// (graph/retrieval/exact.py over exact_members.cypher); this statement is the same ranking in Cypher, for Browser,
// and the tests hold the two to the same order and scores.
// The visible set as in vector_exact.cypher.
:param embedding => [];
:param short_chars => 80;
:param weight => 1.0;
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
// Each vector is read once (bound to a and b): reading a visible item's 384 floats is most of this statement's
// work, and the cosines read them again when they name the property.
WITH n, n.embedding AS a
WHERE a IS NOT NULL
  AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
  AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
OPTIONAL CALL (n) {
  MATCH (n:Episode)-[:FOLLOWS]->(p:Episode)
  WHERE size(coalesce(n.text, '')) <= $short_chars
  WITH p.embedding AS b
  WHERE b IS NOT NULL
  RETURN b LIMIT 1
}
WITH n, vector.similarity.cosine(a, $embedding) * 2 - 1 AS qa,
     CASE WHEN b IS NULL THEN null ELSE vector.similarity.cosine(b, $embedding) * 2 - 1 END AS qb,
     CASE WHEN b IS NULL THEN null ELSE vector.similarity.cosine(a, b) * 2 - 1 END AS ab
WITH n, CASE WHEN qb IS NULL THEN qa
             ELSE (qa + $weight * qb) / sqrt(1 + $weight * $weight + 2 * $weight * ab) END AS score
WHERE score IS NOT NULL
ORDER BY score DESC, n.id
LIMIT $top
RETURN n.id AS id, score, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted} AS item
