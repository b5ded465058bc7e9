// The entities among `ids`, locked for the rest of the transaction, with their properties: read
// before and after an upsert (cypher/topology/upsert_entities.cypher), so that its audit record says
// which entities it created and the previous values of what it changed on the others.
:param ids => ['1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'];
MATCH (e:Entity) WHERE e.id IN $ids
WITH e ORDER BY e.id
WITH collect(e) AS entities
CALL apoc.lock.nodes(entities)
UNWIND entities AS e
RETURN e.id AS id, properties(e) AS props
