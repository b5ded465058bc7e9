// Which of the candidates $ids are about one of the $entities: an episode that mentions one, or an
// entry derived from such an episode (graph/retrieval/understood.py, the entity focus). The ids are
// already visible candidates; the entities are ones the viewer may see.
:param ids => ['ep-1'];
:param entities => ['person:caroline'];
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
WITH n
WHERE EXISTS { (n)-[:MENTIONS]->(e:Entity) WHERE e.id IN $entities }
   OR EXISTS { (n)-[:DERIVED_FROM]->(:Episode)-[:MENTIONS]->(e:Entity) WHERE e.id IN $entities }
RETURN n.id AS id
