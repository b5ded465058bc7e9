// A management node's key revoked: its valid time closes (the node is kept, never overwritten); it endorses
// nothing from now on.
:param id => 'mn-0123456789abcdef';
:param now => 1770000000000;
MATCH (m:ManagementNode {id: $id}) WHERE m.revoked_at IS NULL
SET m.revoked_at = $now, m.valid_until = $now
RETURN properties(m) AS node
