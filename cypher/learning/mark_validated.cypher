// Reflections a cycle has validated.
:param ids => ['reflexion:ep-1'];
:param cycle_id => 'golem-1:cycle:1';
UNWIND $ids AS id
MATCH (r:Reflection {id: id})
WHERE r.validated_in IS NULL
SET r.validated_in = $cycle_id
RETURN count(r) AS validated
