// Items by id, as the backends return them: the kind and every property (the rerank reads text,
// times, confidence and decay, quality or importance, regime, PAD, bloodstain; MMR the embedding).
:param ids => ['ep-1'];
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
RETURN n.id AS id, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.*} AS item
