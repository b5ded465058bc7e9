// A rollback deletes relationships without ids of their own: those of a type from one node (element id) to
// each of the others.
:param type => 'MENTIONS';
:param start => '4:x:1';
:param ends => [];
MATCH (a)-[r]->(b) WHERE elementId(a) = $start AND type(r) = $type AND b.id IN $ends
DELETE r
RETURN count(*) AS deleted
