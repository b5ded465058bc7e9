// An agent's trust level (untrusted, provisional, trusted): while the network cortisol override is on, agents
// below trusted may not ingest.
:param id => 'golem-1';
:param level => 'trusted';
MATCH (a:Agent {id: $id})
WITH a, a.trust_level AS before
SET a.trust_level = $level
RETURN before
