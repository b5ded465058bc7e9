// An outcome that names a causal link is counted once: the first cycle to check it marks it.
:param id => 'ep-1';
:param cycle_id => 'golem-1:cycle:1';
MATCH (ep:Episode {id: $id})
WITH ep, ep.causal_checked_in IS NULL AS fresh
SET ep.causal_checked_in = coalesce(ep.causal_checked_in, $cycle_id)
RETURN fresh AS marked
