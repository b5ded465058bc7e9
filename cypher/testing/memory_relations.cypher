// An agent's memory relations (CUSTOM facts between entities), by the entities' spec ids.
:param agent_id => 'agent-a';
MATCH (s:Entity)-[f:CUSTOM]->(o:Entity) WHERE f.agent_id = $agent_id
RETURN s.slug AS s, f.name AS name, o.slug AS o, f.sources AS sources, f.archived_at AS archived_at
