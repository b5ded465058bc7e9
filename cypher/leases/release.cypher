// Releases a lease its holder still holds with this token (graph/leases.py); with $period, the run of that
// period completed: replicas whose grid reaches it later skip it. Nothing when the lease was lost.
:param name => 'access_log.prune';
:param holder => 'host-a:4242:1f2e3d';
:param token => 7;
:param period => 19700;
MATCH (l:Lease {name: $name})
WHERE l.holder = $holder AND l.token = $token
SET l.holder = null, l.expires_at = null, l.running_period = null, l.released_at = timestamp(),
    l.last_holder = $holder,
    l.period = CASE WHEN $period IS NOT NULL AND coalesce(l.period, -1) < $period THEN $period ELSE l.period END
RETURN l.period AS period
