// An agent's Curator cycles, newest first.
:param admin => true;
:param viewer => '';
:param agent_id => 'golem-1';
:param limit => 20;
MATCH (c:CuratorCycle {agent_id: $agent_id})
WHERE $admin OR c.agent_id = $viewer
RETURN c {.*} AS cycle
ORDER BY c.started_at DESC, c.seq DESC  // ExpeL's distillations number their own
LIMIT $limit
