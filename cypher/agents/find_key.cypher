// A key by id with its agent, for authentication.
:param id => 'k1';
MATCH (k:ApiKey {id: $id})-[:KEY_OF]->(a:Agent)
RETURN properties(k) AS key, properties(a) AS agent
