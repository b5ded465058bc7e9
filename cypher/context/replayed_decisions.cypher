// Of the given decisions, those Loop 3 has replayed already (graph/context/replay.py): each is replayed once, as it
// is the source of a mutation once, so that the next-worst decisions get their turn.
:param ids => ['dec-1'];
MATCH (d:ContextDecision)
WHERE d.id IN $ids AND d.replayed_at IS NOT NULL
RETURN d.id AS id
