// Whether a cycle exists that the caller may see.
:param admin => true;
:param viewer => '';
:param cycle_id => 'golem-1:cycle:1';
MATCH (c:CuratorCycle {id: $cycle_id})
WHERE $admin OR c.agent_id = $viewer
RETURN c.id AS id
