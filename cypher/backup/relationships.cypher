// Every relationship, streamed: its endpoints (their elementIds, from the same transaction's node read), type and
// properties.
MATCH (a)-[r]->(b)
RETURN elementId(a) AS start, elementId(b) AS end, type(r) AS type, properties(r) AS properties
