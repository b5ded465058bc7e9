// Physically delete purged crystals with what hangs off them — their kept versions (PREVIOUS_VERSION) —
// and nothing else: the entities they mention, the crystals they derive from or that derive from them stay
// (their relationships to the purged crystal go with it).
:param rows => [{id: 'ep-1', label: 'Expired'}];
:param before => 1770000000000;
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Expired {id: row.id}) WHERE row.label = 'Expired' RETURN c
  UNION
  MATCH (c:Episode {id: row.id}) WHERE row.label = 'Episode' AND c.lifecycle = 'archived' AND NOT c:Memory
    AND coalesce(c.lifespan, 'permanent') <> 'permanent' RETURN c
  UNION
  MATCH (c:Entry {id: row.id}) WHERE row.label = 'Entry' AND c.lifecycle = 'archived'
    AND coalesce(c.lifespan, 'permanent') <> 'permanent' RETURN c
}
WITH DISTINCT c WHERE c.lifecycle_at <= $before
OPTIONAL MATCH (c)-[:PREVIOUS_VERSION]->(v)
WITH c, collect(DISTINCT v) AS versions
WITH c, versions, c.id AS id, size(versions) AS n
FOREACH (v IN versions | DETACH DELETE v)
DETACH DELETE c
RETURN id, n AS versions
