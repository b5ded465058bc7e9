// Every FOLLOWS link between memories.
MATCH (a:Memory)-[:FOLLOWS]->(b:Memory)
RETURN a.id AS a, b.id AS b
