// A validated mutation: the policy revision it became (written in that revision's transaction).
:param id => 'mut-1';
:param revision => 1;
MATCH (m:ContextMutation {id: $id})
SET m.promoted_to = $revision
RETURN m.id AS id
