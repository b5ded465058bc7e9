// The relations an agent's memories assert that are in force (CUSTOM facts named from the 6.3 vocabulary,
// neither expired nor archived), as index.md's Edges: subject and object by their spec ids, confidence,
// since when, and the last access of the memories behind each that are not archived.
:param agent_id => 'agent-a';
MATCH (m:Memory {agent_id: $agent_id})-[:MENTIONS]->(s:Entity)-[f:CUSTOM]->(o:Entity)
WHERE m:Episode AND f.agent_id = $agent_id AND m.id IN f.sources AND f.expired_at IS NULL
  AND f.archived_at IS NULL
WITH f, s, o, max(m.last_accessed_at) AS last_accessed
RETURN s.slug AS source, f.name AS relation, o.slug AS target, f.confidence_level AS confidence,
       f.valid_from AS first_seen, last_accessed
