// Tests: a console session's times set, as if time had passed (its idle expiry, its last slide).
:param hash => 'a3f1';
:param times => {expires_at: 0};
MATCH (s:ConsoleSession {hash: $hash})
SET s += $times
RETURN s.id AS id
