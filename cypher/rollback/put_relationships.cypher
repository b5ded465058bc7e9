// Undoing a rollback (RestoreImage): the image's relationships, each between its two nodes (element ids), with
// its properties; one with an id of its own (a fact) matched by it.
:param rows => [];
UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.a
MATCH (b) WHERE elementId(b) = row.b
CALL (a, b, row) {
  WITH a, b, row WHERE row.rid IS NULL
  MERGE (a)-[r:$(row.type)]->(b)
  SET r = row.properties
  RETURN r
  UNION
  WITH a, b, row WHERE row.rid IS NOT NULL
  MERGE (a)-[r:$(row.type) {id: row.rid}]->(b)
  SET r = row.properties
  RETURN r
}
RETURN count(r) AS relationships
