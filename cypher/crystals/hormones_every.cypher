// Every agent's stored hormone levels (the consolidation pass reads each owner's modulation).
MATCH (h:AgentHormones)
RETURN h.agent_id AS agent_id, h {.dopamine, .cortisol, .oxytocin, .valid_from, .last_event} AS levels
