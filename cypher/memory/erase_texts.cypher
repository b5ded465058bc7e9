// Before an erasure (graph/memory/forgetting.py): what the memories said — their text and the message that said
// it, with a hash of each text —, the entities they mention (their names and aliases, erased with them when the
// deletion removes them), and the contents of the proposals committed into them.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
MATCH (m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id
CALL (m) {
  OPTIONAL MATCH (m)-[:MENTIONS]->(en:Entity)
  RETURN collect(DISTINCT en {.id, .name, .slug, .aliases}) AS entities
}
CALL (m) {
  OPTIONAL MATCH (p:MemoryProposal) WHERE p.agent_id = $agent_id AND p.memory_id = m.id
  RETURN collect(p.content) AS proposals
}
RETURN m.id AS id, m.text AS text, m.said AS said, entities, proposals
