// A console session by the SHA-256 of its cookie's secret, if it is open and not past its idle expiry, with its
// key and the key's agent (none for the environment's admin key): who the console acts as, read on every page.
:param hash => 'a3f1';
:param now => 0;
MATCH (s:ConsoleSession {hash: $hash})
WHERE s.valid_until IS NULL AND s.expires_at > $now
OPTIONAL MATCH (k:ApiKey {id: s.key_id})-[:KEY_OF]->(a:Agent)
RETURN properties(s) AS session, properties(k) AS key, properties(a) AS agent
