// One cycle's operations, in the order they ran.
:param admin => true;
:param viewer => '';
:param cycle_id => 'golem-1:cycle:1';
MATCH (o:CuratorOperation {cycle_id: $cycle_id})
WHERE $admin OR o.agent_id = $viewer
RETURN o {.*} AS operation
ORDER BY o.seq, o.id
