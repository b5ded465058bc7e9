// Agents' hormone levels as stored (at their last event).
:param ids => ['golem-1'];
UNWIND $ids AS agent_id
MATCH (h:AgentHormones {id: agent_id + ':hormones'})
RETURN agent_id, h {.dopamine, .cortisol, .oxytocin, .valid_from, .last_event} AS levels
