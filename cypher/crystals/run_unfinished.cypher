// The consolidation run that did not finish (graph/crystals/consolidation.py): one marked interrupted (cancelled
// by a shutdown) or still running — a running one untouched since $stale_before died with its process. The next run
// completes it from its cursor rather than starting over. Newest first; at most one is ever open.
:param stale_before => 1770000000000;
MATCH (r:ConsolidationRun)
WHERE r.status IN ['running', 'interrupted']
RETURN r {.*} AS run, r.status = 'running' AND r.touched_at >= $stale_before AS live
ORDER BY r.started_at DESC
LIMIT 1
