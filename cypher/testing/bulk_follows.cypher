// FOLLOWS links between episodes already written (bulk_items), for the context ranking's tests: [later, earlier].
:param pairs => [['ep-2', 'ep-1']];
UNWIND $pairs AS pair
MATCH (a:Episode {id: pair[0]}), (b:Episode {id: pair[1]})
MERGE (a)-[:FOLLOWS]->(b)
RETURN count(*) AS linked
