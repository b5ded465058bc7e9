// An open session ended (signed out, replaced by a new sign-in in the same browser, refused by a route).
:param hash => 'a3f1';
:param now => 0;
:param reason => 'signed out';
MATCH (s:ConsoleSession {hash: $hash})
WHERE s.valid_until IS NULL
SET s.valid_until = $now, s.expires_at = $now, s.ended_reason = $reason, s.recorded_at = $now
RETURN s.id AS id, s.key_id AS key_id, s.agent_id AS agent_id
