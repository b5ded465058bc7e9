// Before an edit of an agent's core memory: the agent's node locked for the rest of the transaction (a
// write that changes nothing still takes the node's write lock), so two edits of one agent's blocks run
// one after the other — each reads the blocks the one before it wrote, and the cap holds over both (no
// lost update). No row: no such agent.
:param agent_id => 'golem-1';
MATCH (a:Agent {id: $agent_id})
SET a.id = a.id
RETURN a.id AS id
