// Episodes a cycle has distilled are consolidated.
:param ids => ['ep-1'];
:param cycle_id => 'golem-1:cycle:1';
UNWIND $ids AS id
MATCH (ep:Episode {id: id})
WHERE ep.consolidated = false
SET ep.consolidated = true, ep.consolidated_in = $cycle_id
RETURN count(ep) AS consolidated
