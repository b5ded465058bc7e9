// An agent's latest Curator cycle (running or complete).
:param agent_id => 'golem-1';
MATCH (c:CuratorCycle {agent_id: $agent_id})
WHERE c.kind IS NULL  // not an ExpeL distillation of one strategy (learning/open_distillation)
RETURN c {.*} AS cycle
ORDER BY c.seq DESC
LIMIT 1
