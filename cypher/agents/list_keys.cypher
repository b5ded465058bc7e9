:param agent_id => 'golem-1';
MATCH (k:ApiKey {agent_id: $agent_id})
RETURN k {.id, .scopes, .created_at, .revoked_at, .label} AS key
ORDER BY k.created_at
