// One more retrieval for a decision by this agent; the count drives contrarian injection.
:param agent_id => 'golem-1';
MATCH (a:Agent {id: $agent_id})
SET a.retrievals = coalesce(a.retrievals, 0) + 1
RETURN a.retrievals AS retrievals
