// Items by id, as the backends return them: the kind and the properties the rerank reads (text,
// times, confidence and decay, quality or importance, regime, PAD, bloodstain); not the embedding.
// Only what the caller may see: the ids come from queries that applied the rule, but an item's scope may
// have narrowed since (the exact ranking reads its set and its items in two statements).
:param ids => ['ep-1'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
WITH n
WHERE $admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)
RETURN n.id AS id, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted} AS item
