// A period of a job spread over replicas done (graph/leases.py): every agent's unit of it ran under its own
// lease, here or elsewhere; replicas whose grid reaches the period later skip the job. Never moves back.
:param name => 'curator.sweep';
:param period => 19700;
:param holder => 'host-a:4242:1f2e3d';
MERGE (l:Lease {name: $name})
  ON CREATE SET l.token = 0, l.created_at = timestamp()
SET l.period = CASE WHEN coalesce(l.period, -1) < $period THEN $period ELSE l.period END,
    l.last_holder = $holder, l.released_at = timestamp()
RETURN l.period AS period
