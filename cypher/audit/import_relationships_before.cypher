// Before an import (cypher/transfer/import_relationships.cypher): the relationships of one type it is
// about to create between nodes that exist already (those to or from a node it creates go with it).
// One branch per base label, so that each end is an index seek (see import_nodes_before.cypher).
:param type => 'MENTIONS';
:param from_label => 'Episode';
:param to_label => 'Entity';
:param rows => [{from: 'ep-1', to: '1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (a:Agent {id: row.from}) WHERE $from_label = 'Agent' RETURN a
  UNION
  MATCH (a:Episode {id: row.from}) WHERE $from_label = 'Episode' RETURN a
  UNION
  MATCH (a:Entry {id: row.from}) WHERE $from_label = 'Entry' RETURN a
  UNION
  MATCH (a:Entity {id: row.from}) WHERE $from_label = 'Entity' RETURN a
  UNION
  MATCH (a:AdmissionDecision {id: row.from}) WHERE $from_label = 'AdmissionDecision' RETURN a
}
CALL (row) {
  MATCH (b:Agent {id: row.to}) WHERE $to_label = 'Agent' RETURN b
  UNION
  MATCH (b:Episode {id: row.to}) WHERE $to_label = 'Episode' RETURN b
  UNION
  MATCH (b:Entry {id: row.to}) WHERE $to_label = 'Entry' RETURN b
  UNION
  MATCH (b:Entity {id: row.to}) WHERE $to_label = 'Entity' RETURN b
  UNION
  MATCH (b:AdmissionDecision {id: row.to}) WHERE $to_label = 'AdmissionDecision' RETURN b
}
WITH DISTINCT row.from AS from, row.to AS to, a, b
WHERE none(r IN [(a)-[x]->(b) | x] WHERE type(r) = $type)  // expands from a: never a scan of all relationships
RETURN from, to
