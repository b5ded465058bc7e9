// Takes or renews a lease (graph/leases.py), in one conditional write. The first SET write-locks the node,
// so concurrent takes (and the fenced writes of its holder, cypher/leases/fence.cypher) run one after the
// other and each reads what the one before it committed. Taken when nobody holds it or the holder's time
// ran out (a new fencing token: the old holder's writes fail from now on) and, for a scheduled run
// ($period not null), when no run of this period completed; renewed when $holder holds it with $token
// (the token kept). Times are the database's clock (timestamp(), ms): replicas' clocks may disagree.
:param name => 'access_log.prune';
:param holder => 'host-a:4242:1f2e3d';
:param token => null;
:param period => 19700;
:param lease_ms => 30000;
MERGE (l:Lease {name: $name})
  ON CREATE SET l.token = 0, l.created_at = timestamp()
SET l.checked_at = timestamp()
WITH l, timestamp() AS now
WITH l, now,
     $token IS NOT NULL AND l.holder = $holder AND l.token = $token AS renewing,
     $token IS NULL AND (l.holder IS NULL OR l.expires_at <= now)
       AND ($period IS NULL OR coalesce(l.period, -1) < $period) AS taking
SET l.token = CASE WHEN taking THEN l.token + 1 ELSE l.token END,
    l.holder = CASE WHEN taking OR renewing THEN $holder ELSE l.holder END,
    l.taken_at = CASE WHEN taking THEN now ELSE l.taken_at END,
    l.running_period = CASE WHEN taking THEN $period ELSE l.running_period END,
    l.expires_at = CASE WHEN taking OR renewing THEN now + $lease_ms ELSE l.expires_at END
RETURN taking OR renewing AS held, l.holder AS holder, l.token AS token, l.period AS period,
       l.last_holder AS last_holder, l.expires_at - now AS expires_in_ms
