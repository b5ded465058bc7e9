// Crystals whose time to live has run out (lifespan ttl), oldest expiry first, at most $limit: the
// scheduler's crystals.lifespan job expires the generated ones and archives the activated ones (the state
// diagram has no activated → expired); skills and frozen crystals never expire.
:param now => 1770000000000;
:param limit => 1000;
CALL () {
  MATCH (c:Episode) WHERE c.expires_at <= $now RETURN c
  UNION
  MATCH (c:Entry) WHERE c.expires_at <= $now RETURN c
}
WITH c WHERE c.lifecycle IN ['generated', 'activated'] AND NOT c:Skill
RETURN c.id AS id, c.lifecycle AS lifecycle, c.agent_id AS agent_id,
       [l IN labels(c) WHERE l IN ['Episode', 'Memory', 'Entry']] AS kinds
ORDER BY c.expires_at, c.id
LIMIT $limit
