// Closes a Curator cycle with its counts.
:param id => 'golem-1:cycle:1';
:param props => {status: 'complete'};
MATCH (c:CuratorCycle {id: $id})
SET c += $props
RETURN c {.*} AS cycle
