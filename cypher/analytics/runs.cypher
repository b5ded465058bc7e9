// Analysis runs the viewer may see (its own, and those run in the admin's view), newest first,
// optionally of one algorithm and graph.
:param algorithm => null;
:param graph => null;
:param admin => true;
:param viewer => '';
:param clade => '';
:param limit => 50;
MATCH (run:AnalysisRun)
WHERE ($admin OR run.owner IS NULL OR run.owner = $viewer)
  AND ($algorithm IS NULL OR run.algorithm = $algorithm) AND ($graph IS NULL OR run.graph = $graph)
RETURN run {.*} AS run
ORDER BY run.ran_at DESC, run.id
LIMIT $limit
