// Loop 3 replayed these decisions (graph/context/mutations.py): marked, in the transaction that stages what passed.
:param ids => ['dec-1'];
:param at => 1700000000000;
MATCH (d:ContextDecision)
WHERE d.id IN $ids
SET d.replayed_at = $at
RETURN count(d) AS marked
