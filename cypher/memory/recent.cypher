// One agent's most recent memories that are not archived (of one store when given).
:param agent_id => 'agent-a';
:param store => null;
:param limit => 20;
MATCH (m:Memory:Episode {agent_id: $agent_id})
WHERE $store IS NULL OR m.store = $store
RETURN m {.*, embedding: null} AS memory, 1.0 AS score
ORDER BY m.valid_from DESC, m.id DESC
LIMIT $limit
