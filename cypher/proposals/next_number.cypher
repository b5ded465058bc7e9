// The next proposal number of a main agent (Proposal #N of section 13.2): one past the highest, so a number
// is never reused even when a proposal is removed. Run under the agent's lock.
:param agent_id => 'moltbot';
OPTIONAL MATCH (p:MemoryProposal {agent_id: $agent_id})
RETURN coalesce(max(p.number), 0) + 1 AS number
