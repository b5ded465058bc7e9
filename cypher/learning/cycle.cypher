// One Curator cycle by id.
:param id => 'golem-1:cycle:1';
MATCH (c:CuratorCycle {id: $id})
RETURN c {.*} AS cycle
