// Sessions that can never be used again deleted, a batch at a time: past their idle expiry, or ended (an ended
// session's expiry is set to its end). Their start and end stay in the audit trail.
:param now => 0;
:param batch => 200;
MATCH (s:ConsoleSession)
WHERE s.expires_at <= $now
WITH s LIMIT $batch
WITH s, s.id AS id
DETACH DELETE s
RETURN id
