// An agent's latest Curator cycle (running or complete).
:param agent_id => 'golem-1';
MATCH (c:CuratorCycle {agent_id: $agent_id})
RETURN c {.*} AS cycle
ORDER BY c.seq DESC
LIMIT 1
