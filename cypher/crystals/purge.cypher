// Physically delete purged crystals with what hangs off them — their kept versions (PREVIOUS_VERSION) —
// and nothing else: the entities they mention, the crystals they derive from or that derive from them stay
// (their relationships to the purged crystal go with it).
:param ids => ['ep-1'];
:param before => 1770000000000;
UNWIND $ids AS id
CALL (id) {
  MATCH (c:Expired {id: id}) RETURN c
  UNION
  MATCH (c:Episode {id: id}) WHERE c.lifecycle = 'archived' RETURN c
  UNION
  MATCH (c:Entry {id: id}) WHERE c.lifecycle = 'archived' RETURN c
}
WITH DISTINCT c WHERE c.lifecycle_at <= $before
OPTIONAL MATCH (c)-[:PREVIOUS_VERSION]->(v)
WITH c, collect(DISTINCT v) AS versions
WITH c, versions, c.id AS id, size(versions) AS n
FOREACH (v IN versions | DETACH DELETE v)
DETACH DELETE c
RETURN id, n AS versions
