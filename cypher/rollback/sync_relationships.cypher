// Undoing a rollback (RestoreImage): the imaged nodes' relationships that the image does not hold are removed
// (a node's of the given types; between imaged entities, CUSTOM relations), keyed type|start|end|id.
:param nodes => [];
:param entities => [];
:param keep => [];
:param types => ['MENTIONS', 'CUSTOM', 'FOLLOWS', 'LEARNED_FROM', 'DERIVED_FROM', 'DECIDED', 'CAUSES'];
UNWIND $nodes AS eid
MATCH (n)-[r]-(o) WHERE elementId(n) = eid AND type(r) IN $types
  AND (NOT n:Entity OR (type(r) = 'CUSTOM' AND elementId(o) IN $entities))
WITH DISTINCT r
WITH r, type(r) + '|' + startNode(r).id + '|' + endNode(r).id + '|' + coalesce(r.id, '') AS key
WHERE NOT key IN $keep
DELETE r
RETURN count(*) AS removed
