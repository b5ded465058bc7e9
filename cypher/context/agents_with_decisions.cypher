// The agents with decision records (Loop 1), with their clade: those Loop 2 may have something to learn for (one
// index seek per agent, not a scan of every decision).
MATCH (a:Agent)
WHERE EXISTS { MATCH (d:ContextDecision) WHERE d.agent_id = a.id AND d.at IS NOT NULL }
RETURN a.id AS agent_id, a.clade AS clade
ORDER BY agent_id
