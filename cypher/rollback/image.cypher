// Images of nodes before a rollback changes them (graph/audit/rollback.py), so that the rollback can be undone
// exactly: labels, properties, embedding, and the relationships of the given types — every one of a node that
// is not an entity, and among entities only the CUSTOM relations between imaged ones (an entity's other
// relationships are the world's, not this change's). A memory also names its neighbours (the entities it
// mentions, the memories before and after it, those it was learned from), imaged with it.
:param eids => [];
:param types => ['MENTIONS', 'CUSTOM', 'FOLLOWS', 'LEARNED_FROM', 'DERIVED_FROM', 'DECIDED', 'CAUSES'];
UNWIND $eids AS eid
MATCH (n) WHERE elementId(n) = eid
CALL (n) {
  OPTIONAL MATCH (n)-[r]-(o)
  WHERE type(r) IN $types AND (NOT n:Entity OR (type(r) = 'CUSTOM' AND elementId(o) IN $eids))
  RETURN collect(CASE WHEN r IS NULL THEN null ELSE
    {type: type(r), start_id: startNode(r).id, start_labels: labels(startNode(r)), end_id: endNode(r).id,
     end_labels: labels(endNode(r)), properties: properties(r)} END) AS relationships
}
RETURN eid, n.id AS id, labels(n) AS labels, apoc.map.removeKey(properties(n), 'embedding') AS properties,
       n.embedding AS embedding, relationships,
       CASE WHEN n:Memory THEN [(n)-[:MENTIONS]->(e:Entity) | e.id] ELSE [] END AS entities,
       CASE WHEN n:Memory THEN [(n)-[:FOLLOWS|LEARNED_FROM]-(m:Memory) | m.id] ELSE [] END AS memories
