// The scheduled jobs' leases (graph/leases.py) as the Prometheus endpoint exports them (graph/prometheus_state.py):
// who holds each now, its fencing token, when it was last released. A job's own lease only: an agent's unit
// lease (`curator:golem-1`) would name an agent and make a series per agent.
MATCH (l:Lease)
WHERE NOT l.name CONTAINS ':'
RETURN l.name AS name, l.holder AS holder, l.token AS token, l.expires_at - timestamp() AS expires_in_ms,
       l.released_at AS released_at
ORDER BY name
