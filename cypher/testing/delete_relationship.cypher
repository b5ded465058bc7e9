// Deletes the relationships of one type that leave one node (by id), as if they had never been written.
:param type => 'MENTIONS';
:param start => 'ep-1';
MATCH (a {id: $start})-[r]->()
WHERE type(r) = $type
DELETE r
