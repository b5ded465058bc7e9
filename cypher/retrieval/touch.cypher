// Retrieval for a decision marks what it returned as accessed (the decay clock restarts); it
// never changes strength, which only the outcome endpoint does.
:param ids => ['ep-1'];
:param now => 1700000000000;
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
SET n.last_accessed_at = $now, n.access_count = coalesce(n.access_count, 0) + 1
RETURN count(n) AS touched
