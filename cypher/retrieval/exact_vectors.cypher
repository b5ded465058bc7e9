// What the replica holds of items an exact ranking needs and it lacks (graph/retrieval/exact.py), by id: the ids
// come from exact_members.cypher, which decided what the caller may see. Each with its recorded time (so that it is
// held only under the key it was read for), its stored vector, and for an episode its text's length and the turn
// it follows (the first with a vector, as vector_context.cypher reads it): the short-turn context; and the counter
// (exact_members.cypher), so that what is read is held only if it was read at the members' counter.
:param ids => ['ep-1'];
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
OPTIONAL CALL (n) {
  MATCH (n:Episode)-[:FOLLOWS]->(p:Episode)
  WHERE p.embedding IS NOT NULL
  RETURN p LIMIT 1
}
RETURN n.id AS id, coalesce(n.recorded_at, 0) AS recorded_at, n.embedding AS embedding,
       CASE WHEN n:Episode THEN size(coalesce(n.text, '')) END AS chars,
       p.id AS prev_id, coalesce(p.recorded_at, 0) AS prev_at,
       coalesce(head(COLLECT { MATCH (c:VectorEpoch {id: 'vectors'}) RETURN c.n }), 0) AS epoch
