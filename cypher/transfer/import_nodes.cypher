// Restores nodes of one base label (from the project's enum) by id: properties replaced, extra
// labels (categories, entity kinds: enum values) added, embeddings set as float32 vectors.
:param label => 'Episode';
:param rows => [];
UNWIND $rows AS row
MERGE (n:$($label) {id: row.id})
SET n = row.properties, n.id = row.id
WITH n, row
CALL (n, row) {
  UNWIND row.extra_labels AS extra
  SET n:$(extra)
}
CALL (n, row) {
  WITH n, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
RETURN count(n) AS nodes
