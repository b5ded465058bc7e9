// Any node with one of these ids, whatever its labels (a purge test checks nothing is left).
:param ids => ['ep-1'];
MATCH (n) WHERE n.id IN $ids
RETURN n.id AS id, labels(n) AS labels
