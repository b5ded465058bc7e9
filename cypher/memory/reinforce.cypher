// Reinforcement (section 9.4): one more access, the last access now, for the agent's memories named.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
:param now => 1770000000000;
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.agent_id = $agent_id AND m.archived_at IS NULL
SET m.access_count = coalesce(m.access_count, 0) + 1, m.last_accessed_at = $now
RETURN m.id AS id, m.access_count AS access_count
