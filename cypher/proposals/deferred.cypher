// The proposals a main agent deferred to the reflection engine (section 13.3), oldest first: a reflection
// proposes committing them, and the person's approval does.
:param agent_id => 'moltbot';
:param limit => 50;
MATCH (p:MemoryProposal {agent_id: $agent_id})
WHERE p.status = 'deferred'
RETURN p.id AS id, p.number AS number, p.from_agent AS from_agent, p.store AS store, p.content AS content
ORDER BY p.number
LIMIT $limit
