// What the rerank needs of each candidate: text, kind, times, confidence and decay, quality or
// importance, regime, the PAD tag, the bloodstain flag, and (when asked) the embedding.
:param ids => ['ep-1'];
:param with_embedding => false;
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
RETURN n.id AS id, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind,
       coalesce(n.content, n.text) AS text, n.category AS category, n.status AS status,
       n.agent_id AS agent_id, n.valid_from AS valid_from, n.recorded_at AS recorded_at,
       n.block AS block, n.last_accessed_at AS last_accessed_at, n.confidence AS confidence,
       n.half_life_ms AS half_life_ms, n.strength AS strength, n.quality_score AS quality_score,
       n.importance AS importance, coalesce(n.regime, n.market_regime) AS regime, n.pad AS pad,
       coalesce(n.is_bloodstain, false) AS is_bloodstain, n.gain AS gain,
       CASE WHEN $with_embedding THEN n.embedding END AS embedding
