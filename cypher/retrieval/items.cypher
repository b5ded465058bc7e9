// Items by id, as the backends return them: the kind and the properties the rerank reads (text,
// times, confidence and decay, quality or importance, regime, PAD, bloodstain); not the embedding.
:param ids => ['ep-1'];
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
RETURN n.id AS id, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .gain, .scope, .clade, .level, .interrupted} AS item
