// A management node (graph/crystals/endorsements.py) by id, locked for the transaction that reads it: an
// endorsement and a revocation at once are ordered.
:param id => 'mn-0123456789abcdef';
MATCH (m:ManagementNode {id: $id})
SET m.id = m.id
RETURN properties(m) AS node
