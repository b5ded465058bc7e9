// The agents with decision records (Loop 1), with their clade: those Loop 2 may have something to learn for.
MATCH (d:ContextDecision)
WITH DISTINCT d.agent_id AS agent_id
OPTIONAL MATCH (a:Agent {id: agent_id})
RETURN agent_id, a.clade AS clade
ORDER BY agent_id
