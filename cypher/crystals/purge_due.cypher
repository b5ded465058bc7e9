// What the purge deletes: expired crystals and archived ones whose state is older than the retention, at
// most $limit; never an archived memory (a person deletes memories: moltbot-memory.md) or a permanent crystal.
:param before => 1770000000000;
:param limit => 1000;
CALL () {
  MATCH (c:Expired) WHERE c.lifecycle_at <= $before RETURN c
  UNION
  MATCH (c:Episode) WHERE c.lifecycle = 'archived' AND c.lifecycle_at <= $before AND NOT c:Memory
    AND coalesce(c.lifespan, 'permanent') <> 'permanent' RETURN c
  UNION
  MATCH (c:Entry) WHERE c.lifecycle = 'archived' AND c.lifecycle_at <= $before
    AND coalesce(c.lifespan, 'permanent') <> 'permanent' RETURN c
}
RETURN c.id AS id, c.agent_id AS agent_id, c.lifecycle AS lifecycle,
       CASE WHEN c:Expired THEN 'Expired' WHEN c:Entry THEN 'Entry' ELSE 'Episode' END AS label
LIMIT $limit
