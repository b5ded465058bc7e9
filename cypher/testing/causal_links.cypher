// An agent's causal links with their weights, confidence and provenance.
:param agent_id => 'agent-a';
MATCH ()-[c:CAUSES]->() WHERE c.agent_id = $agent_id
RETURN c.id AS id, c.weight AS weight, c.confidence AS confidence, c.provenance AS provenance
