// A stored vector changed in place (an entry's edit, a rollback, an erasure, an import): the counter every replica's
// exact ranking checks is moved on, so none ranks with a vector it read before (graph/retrieval/exact.py). Run in the
// transaction of the change.
:param now => 1700000000000;
MERGE (c:VectorEpoch {id: 'vectors'})
  ON CREATE SET c.n = 1, c.valid_from = $now, c.recorded_at = $now
  ON MATCH SET c.n = c.n + 1, c.recorded_at = $now
RETURN c.n AS epoch
