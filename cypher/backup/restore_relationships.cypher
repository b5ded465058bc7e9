// A batch of relationships from a backup file, between nodes found by their number in the file.
:param rows => [{start: 0, end: 1, type: 'MENTIONS', properties: {}, vectors: {}}];
UNWIND $rows AS row
MATCH (a:_GrimoireRestore {_grimoire_restore_key: row.start})
MATCH (b:_GrimoireRestore {_grimoire_restore_key: row.end})
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.properties
WITH r, row
CALL (r, row) {
  UNWIND keys(row.vectors) AS key
  CALL db.create.setRelationshipVectorProperty(r, key, row.vectors[key])
}
RETURN count(*) AS written
