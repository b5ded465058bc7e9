// One run with its results, best score first.
:param run_id => 'run-1';
:param admin => true;
:param viewer => '';
:param clade => '';
:param limit => 100;
MATCH (run:AnalysisRun {id: $run_id})
WHERE $admin OR run.owner IS NULL OR run.owner = $viewer
OPTIONAL MATCH (run)-[s:SCORED]->(n)
WITH run, s, n ORDER BY s.rank, s.score DESC, n.id
WITH run, [x IN collect({id: n.id, name: n.name, kind: coalesce(n.kind, n.category), result: properties(s)})
           WHERE x.id IS NOT NULL] AS results
RETURN run {.*} AS run, results[..$limit] AS results
