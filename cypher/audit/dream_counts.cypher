// The dream counts of the crystals a replay returned (graph/audit/access.py, Reads.flush): their ripple counts are
// sampled for the counts they reach. The no-op SET takes each crystal's write lock first, so a replica flushing the
// same crystal at once waits, and each samples for the count it moves.
:param ids => ['ep-1'];
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
SET n.dream_count = coalesce(n.dream_count, 0)
RETURN n.id AS id, n.dream_count AS dreams
