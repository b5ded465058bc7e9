// For the hierarchical score (graph/retrieval/neighbourhood.py): each pair of candidates $ids in one thread, at most
// $hops FOLLOWS steps apart (either way). Only candidates are returned: they came from queries that applied the
// visibility rule, so nothing else is read out. 64 is the configuration's ceiling of $hops (a variable-length bound
// must be written out).
:param ids => ['ep-1', 'ep-2'];
:param hops => 64;
UNWIND $ids AS id
MATCH p = (n:Episode {id: id})-[:FOLLOWS*1..64]-(m:Episode)
WHERE length(p) <= $hops AND m.id IN $ids AND m <> n
RETURN DISTINCT n.id AS id, m.id AS mate
