// Which of these candidates an agent's Admission Gate has decided already, and the entry each decision names (an
// import's copies, whose ids are derived from their sources: an import repeated decides nothing again).
:param agent_id => 'golem-1';
:param ids => [];
MATCH (d:AdmissionDecision {agent_id: $agent_id})
WHERE d.candidate_id IN $ids
RETURN d.candidate_id AS id, collect(d.entry_id)[0] AS entry_id
