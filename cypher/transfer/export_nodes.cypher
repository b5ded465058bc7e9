// Everything one agent owns (its node, episodes, entries, admission decisions) and the entities
// its episodes mention, with all properties; embeddings apart.
:param agent_id => 'golem-1';
CALL () {
  MATCH (n:Agent {id: $agent_id}) RETURN n
  UNION
  MATCH (n:Episode {agent_id: $agent_id}) RETURN n
  UNION
  MATCH (n:Entry {agent_id: $agent_id}) RETURN n
  UNION
  MATCH (n:AdmissionDecision {agent_id: $agent_id}) RETURN n
  UNION
  MATCH (:Episode {agent_id: $agent_id})-[:MENTIONS]->(n:Entity) RETURN n
}
RETURN labels(n) AS labels, n.id AS id, apoc.map.removeKey(properties(n), 'embedding') AS properties,
       n.embedding AS embedding
ORDER BY labels[0], id
