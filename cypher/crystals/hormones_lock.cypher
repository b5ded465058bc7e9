// An agent's hormone levels, locked for an event's read-modify-write (two events at once both count): made at
// homeostasis if the agent has none yet. `existed`: whether they were stored before this statement.
:param id => 'golem-1:hormones';
:param agent_id => 'golem-1';
:param now => 1770000000000;
:param homeostasis => {dopamine: 0.15, cortisol: 0.02, oxytocin: 0.10};
OPTIONAL MATCH (old:AgentHormones {id: $id})
WITH old IS NOT NULL AS existed
MERGE (h:AgentHormones {id: $id})
  ON CREATE SET h.agent_id = $agent_id, h.dopamine = $homeostasis.dopamine, h.cortisol = $homeostasis.cortisol,
                h.oxytocin = $homeostasis.oxytocin, h.valid_from = $now, h.recorded_at = $now
SET h.valid_from = h.valid_from
RETURN existed, h {.dopamine, .cortisol, .oxytocin, .valid_from, .last_event} AS levels
