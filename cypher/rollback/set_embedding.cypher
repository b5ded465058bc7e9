// A rollback restores a text: its embedding (computed before the transaction opened) follows it.
:param eid => '4:x:1';
:param embedding => [];
MATCH (n) WHERE elementId(n) = $eid
CALL db.create.setNodeVectorProperty(n, 'embedding', $embedding)
RETURN n.id AS id
