// Before an edit of an agent's core memory: the agent's node locked (a write to it) for the rest of the
// transaction, so two edits of one agent's blocks run one after the other — each reads the blocks the
// one before it wrote, and the cap holds over both (no lost update). Counts the agent's core edits.
:param agent_id => 'golem-1';
MATCH (a:Agent {id: $agent_id})
SET a.core_edits = coalesce(a.core_edits, 0) + 1
RETURN a.core_edits AS edits
