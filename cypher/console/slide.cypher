// An open session's idle expiry slid forward, only when the last slide is older than $before (so a page view
// writes nothing most of the time, and of two replicas sliding at once the second writes nothing).
:param hash => 'a3f1';
:param now => 0;
:param before => 0;
:param expires_at => 0;
MATCH (s:ConsoleSession {hash: $hash})
WHERE s.valid_until IS NULL AND s.last_used_at < $before
SET s.last_used_at = $now, s.expires_at = $expires_at, s.recorded_at = $now
RETURN s.id AS id
