// Phase 3 of a consolidation pass (episodes): for each promoted crystal, its near neighbours from the vector
// index (never an all-pairs scan) that are promoted and activated too (a promoted crystal is activated by the
// scoring before it), of one source — the same owner, semantic type, scope and clade (never another owner's
// or partition's); never a memory (memories are merged by reflection, moltbot-memory.md) or a skill — at
// cosine at least the owner's hormone-modulated merge threshold. The index's cosine score is (1 + cos) / 2.
:param ids => ['ep-1'];
:param k => 10;
:param promote => 0.7;
:param thresholds => {};
:param default_threshold => 0.9206;
UNWIND $ids AS id
MATCH (c:Episode {id: id})
WHERE c.embedding IS NOT NULL AND c.lifecycle = 'activated' AND NOT c:Memory AND NOT c:Skill
CALL db.index.vector.queryNodes('episode_embedding', $k, c.embedding) YIELD node AS o, score
WITH c, o, 2 * score - 1 AS cosine
WHERE o <> c AND o.agent_id = c.agent_id AND o.scope = c.scope AND coalesce(o.clade, '') = coalesce(c.clade, '')
  AND NOT o:Memory AND NOT o:Skill
  AND coalesce(o.semantic_type, '') = coalesce(c.semantic_type, '')
  AND o.lifecycle = 'activated' AND o.importance_score > $promote
  AND cosine >= coalesce($thresholds[c.agent_id], $default_threshold)
RETURN c.id AS a, o.id AS b, cosine, c.importance_score AS a_score, o.importance_score AS b_score,
       coalesce(c.priority, 0) AS a_priority, coalesce(o.priority, 0) AS b_priority,
       c.agent_id AS agent_id
