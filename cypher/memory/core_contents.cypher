// The text of an agent's core blocks (what a forget looks through).
:param agent_id => 'agent-a';
MATCH (b:CoreBlock {agent_id: $agent_id})
RETURN b.block AS block, b.content AS content, b.pinned AS pinned
