// Serialise the revisions of one agent's context policy (graph/context/policy.py): the agent's node locked for
// the rest of the transaction, so two changes read, number and close revisions one after the other.
:param agent_id => 'agent-a';
MATCH (a:Agent {id: $agent_id})
CALL apoc.lock.nodes([a])
RETURN a.id AS id
