// An agent (null when there is none) and its identity block's text (the person's name is read from it).
:param agent_id => 'agent-a';
:param identity_id => 'agent-a:core:identity';
OPTIONAL MATCH (a:Agent {id: $agent_id})
OPTIONAL MATCH (b:CoreBlock {id: $identity_id})
RETURN properties(a) AS agent, b.content AS identity
