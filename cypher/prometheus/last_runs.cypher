// When the Curator last completed a cycle (any agent, any replica, its own process too) and when a consolidation
// run last ended (its job's lease released, on any replica), for the Prometheus endpoint (graph/prometheus_state.py).
// The newest cycle through the range index on finished_at, not a scan of every cycle.
:param consolidation => 'crystals.consolidation';
OPTIONAL MATCH (c:CuratorCycle)
WHERE c.finished_at IS NOT NULL AND c.kind IS NULL AND c.status = 'complete'
WITH c
ORDER BY c.finished_at DESC
LIMIT 1
OPTIONAL MATCH (l:Lease {name: $consolidation})
RETURN c.finished_at AS curator_at, l.released_at AS consolidation_at
