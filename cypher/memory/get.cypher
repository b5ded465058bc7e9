// Memories of one agent by id (archived ones too), with the entities they name and, for a procedure,
// what it was learned from.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.agent_id = $agent_id
RETURN m {.*, embedding: null} AS memory,
       [(m)-[:MENTIONS]->(en:Entity) | en {.id, .name, .kind, .slug}] AS entities,
       [(m)-[:LEARNED_FROM]->(s:Memory) | s.id] AS learned_from
