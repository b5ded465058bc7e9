// Deltas a cycle has netted are applied (in the transaction that applies them).
:param ids => ['d-1'];
:param cycle_id => 'golem-1:cycle:1';
UNWIND $ids AS id
MATCH (x:Delta {id: id})
WHERE x.applied_in IS NULL
SET x.applied_in = $cycle_id
RETURN count(x) AS applied
