// An agent's hormone levels after an event (their audit record is written in the same transaction).
:param id => 'golem-1:hormones';
:param agent_id => 'golem-1';
:param dopamine => 0.45;
:param cortisol => 0.02;
:param oxytocin => 0.1;
:param at => 1770000000000;
:param event => 'reward';
MERGE (h:AgentHormones {id: $id})
SET h.agent_id = $agent_id, h.dopamine = $dopamine, h.cortisol = $cortisol, h.oxytocin = $oxytocin,
    h.valid_from = $at, h.recorded_at = $at, h.last_event = $event
