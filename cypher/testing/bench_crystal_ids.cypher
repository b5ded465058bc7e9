// The benchmark agent's episodes and entries, by id (bench/consolidation.py scripts their access histories).
:param agent_id => 'bench-golem';
CALL () {
  MATCH (c:Episode {agent_id: $agent_id}) RETURN c.id AS id
  UNION
  MATCH (c:Entry {agent_id: $agent_id}) RETURN c.id AS id
}
RETURN id ORDER BY id
