// The latest memories of one session (what a procedure taught in it was learned from).
:param agent_id => 'agent-a';
:param session_id => 's-1';
:param limit => 5;
MATCH (m:Memory:Episode {agent_id: $agent_id, session_id: $session_id})
RETURN m.id AS id
ORDER BY m.valid_from DESC, m.id DESC
LIMIT $limit
