// The relationships among one agent's items, with their properties; a crystal's lineage (PROVENANCE) to
// whatever it derives from (an import skips a parent it does not have).
:param agent_id => 'golem-1';
CALL () {
  MATCH (a:Episode {agent_id: $agent_id})-[r:MENTIONS]->(b:Entity) RETURN a, r, b
  UNION
  MATCH (a:Entry {agent_id: $agent_id})-[r:DERIVED_FROM]->(b:Episode) RETURN a, r, b
  UNION
  MATCH (a:AdmissionDecision {agent_id: $agent_id})-[r:DECIDED]->(b:Entry) RETURN a, r, b
  UNION
  MATCH (a:Episode {agent_id: $agent_id})-[r:PROVENANCE]->(b) WHERE b:Episode OR b:Entry RETURN a, r, b
  UNION
  MATCH (a:Entry {agent_id: $agent_id})-[r:PROVENANCE]->(b) WHERE b:Episode OR b:Entry RETURN a, r, b
}
RETURN type(r) AS type, a.id AS from, labels(a) AS from_labels, b.id AS to, labels(b) AS to_labels,
       properties(r) AS properties
ORDER BY type, from, to
