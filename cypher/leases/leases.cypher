// The leases of these names as they stand (graph/leases.py), for the scheduler's job list: holder, token,
// the last period completed, and how long the holder's time still runs (ms; negative: expired).
:param names => ['access_log.prune', 'curator.sweep'];
MATCH (l:Lease)
WHERE l.name IN $names
RETURN l.name AS name, l.holder AS holder, l.token AS token, l.period AS period, l.last_holder AS last_holder,
       l.expires_at - timestamp() AS expires_in_ms
ORDER BY name
