// Entities as stored before entity visibility existed (no `public`, no `creators`), to test the
// schema step's backfill.
MATCH (e:Entity)
REMOVE e.public, e.creators
RETURN count(e) AS entities
