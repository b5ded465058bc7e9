// Phase 3 of a consolidation pass (entries), before the cosine pairs: each promoted crystal's exact twins — the same
// content hash (knowledge-crystals.md, line 29), found by the entry_content_hash index, no embedding compared —
// of one source as the cosine pairs are (the same owner, semantic type, scope and clade; never another owner's or
// partition's; never a memory or a skill), promoted and activated too.
:param ids => ['ep-1'];
:param promote => 0.7;
UNWIND $ids AS id
MATCH (c:Entry {id: id})
WHERE c.content_hash IS NOT NULL AND c.lifecycle = 'activated' AND NOT c:Memory AND NOT c:Skill
MATCH (o:Entry {content_hash: c.content_hash})
WHERE o <> c AND o.agent_id = c.agent_id AND o.scope = c.scope AND coalesce(o.clade, '') = coalesce(c.clade, '')
  AND NOT o:Memory AND NOT o:Skill
  AND coalesce(o.semantic_type, '') = coalesce(c.semantic_type, '')
  AND o.lifecycle = 'activated' AND o.importance_score > $promote
RETURN c.id AS a, o.id AS b, null AS cosine, true AS by_hash, c.importance_score AS a_score,
       o.importance_score AS b_score,
       coalesce(c.priority, 0) AS a_priority, coalesce(o.priority, 0) AS b_priority, c.agent_id AS agent_id
