// Everything one agent owns (its node, episodes, entries, admission decisions), the entities its
// episodes mention and those it created (POST /entities), with all properties; embeddings apart.
// An entity's creators are cut to this agent: who else sent it is not this agent's to export.
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
  UNION
  MATCH (n:Entity) WHERE $agent_id IN n.creators RETURN n
}
WITH n, apoc.map.removeKey(properties(n), 'embedding') AS props
RETURN labels(n) AS labels, n.id AS id,
       CASE WHEN n:Entity AND n.creators IS NOT NULL
            THEN apoc.map.setKey(props, 'creators', [c IN n.creators WHERE c = $agent_id]) ELSE props END AS properties,
       n.embedding AS embedding
ORDER BY labels[0], id
