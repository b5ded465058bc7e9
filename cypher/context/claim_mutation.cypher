// A staged mutation judged: it leaves 'staged' once. The node is locked first, so a second judge waiting on the
// lock reads the decided status and claims nothing.
:param id => 'mut-1';
:param status => 'validated';
:param at => 1700000000000;
MATCH (m:ContextMutation {id: $id})
CALL apoc.lock.nodes([m])
WITH m
WHERE m.status = 'staged'
SET m.status = $status, m.decided_at = $at
RETURN m.id AS id
