// Undoing a rollback (RestoreImage): each imaged node as it was — found by element id and given back its
// properties and labels exactly, or created when it is gone — with its embedding (the vector index follows).
// Labels come from images validated against the project's vocabularies (graph/audit/revert.py).
:param rows => [{eid: null, labels: ['Memory', 'Episode'], properties: {id: 'mem-1'}, embedding: null}];
UNWIND $rows AS row
CALL (row) {
  WITH row WHERE row.eid IS NOT NULL
  MATCH (n) WHERE elementId(n) = row.eid
  WITH n, row, [l IN labels(n) WHERE NOT l IN row.labels] AS extra
  SET n = row.properties
  SET n:$(row.labels)
  REMOVE n:$(extra)
  RETURN n
  UNION
  WITH row WHERE row.eid IS NULL
  CREATE (n:$(row.labels))
  SET n = row.properties
  RETURN n
}
CALL (n, row) {
  WITH n, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
RETURN n.id AS id, elementId(n) AS eid
