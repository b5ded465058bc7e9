// Restores relationships of one type between nodes of two base labels (all from the project's enums).
:param type => 'MENTIONS';
:param from_label => 'Episode';
:param to_label => 'Entity';
:param rows => [];
UNWIND $rows AS row
MATCH (a:$($from_label) {id: row.from})
MATCH (b:$($to_label) {id: row.to})
MERGE (a)-[r:$($type)]->(b)
SET r = row.properties
RETURN count(r) AS relationships
