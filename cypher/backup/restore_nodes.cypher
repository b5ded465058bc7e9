// A batch of nodes from a backup file: labels (dynamic), properties, vectors stored as vectors (32-bit floats, as
// the project writes embeddings), and the file's number of each under the restore's own label until the end.
:param rows => [{key: 0, labels: ['Agent'], properties: {id: 'golem-1'}, vectors: {}}];
UNWIND $rows AS row
CREATE (n:$(row.labels + ['_GrimoireRestore']))
SET n = row.properties, n._grimoire_restore_key = row.key
WITH n, row
CALL (n, row) {
  UNWIND keys(row.vectors) AS key
  CALL db.create.setNodeVectorProperty(n, key, row.vectors[key])
}
RETURN count(*) AS written
