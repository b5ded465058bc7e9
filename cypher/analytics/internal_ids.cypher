// The internal node ids GDS knows nodes by, for our ids (entities and entries).
:param ids => ['1:0x54586be62e3c3580375ae3723c145253060ca0c2'];
UNWIND $ids AS wanted
CALL (wanted) {
  MATCH (n:Entity {id: wanted}) RETURN n
  UNION
  MATCH (n:Entry {id: wanted}) RETURN n
}
RETURN n.id AS id, id(n) AS node_id
