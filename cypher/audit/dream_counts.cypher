// The dream counts of the crystals a replay returned (graph/audit/access.py, Reads.flush): their ripple counts are
// sampled for the counts they reach.
:param ids => ['ep-1'];
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
RETURN n.id AS id, coalesce(n.dream_count, 0) AS dreams
