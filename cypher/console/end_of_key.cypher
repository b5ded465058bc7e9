// Every open console session of a key ended: run in the transaction that revokes the key (graph/agents.py).
:param key_id => 'k1';
:param now => 0;
MATCH (s:ConsoleSession {key_id: $key_id})
WHERE s.valid_until IS NULL
SET s.valid_until = $now, s.expires_at = $now, s.ended_reason = 'key revoked', s.recorded_at = $now
RETURN s.id AS id
