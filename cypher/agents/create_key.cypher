// Stores an API key's hash (never the key) for an agent.
:param agent_id => 'golem-1';
:param key => {id: 'k1', hash: '', scopes: ['read'], created_at: 0};
MATCH (a:Agent {id: $agent_id})
CREATE (k:ApiKey)
SET k = $key, k.agent_id = a.id
CREATE (k)-[:KEY_OF]->(a)
RETURN k.id AS id
