// One run with its results, best score first: only the results (entities, entries) the viewer may
// see, whoever ran it (a run in the admin's view scored everything).
:param run_id => 'run-1';
:param admin => true;
:param viewer => '';
:param clade => '';
:param limit => 100;
MATCH (run:AnalysisRun {id: $run_id})
WHERE $admin OR run.owner IS NULL OR run.owner = $viewer
OPTIONAL MATCH (run)-[s:SCORED]->(en)
WHERE (en:Entity AND ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) }))
   OR (en:Entry AND ($admin OR en.agent_id = $viewer OR en.scope = 'public' OR (en.scope = 'shared' AND en.clade = $clade)))
WITH run, s, en ORDER BY s.rank, s.score DESC, en.id
WITH run, [x IN collect({id: en.id, name: en.name, kind: coalesce(en.kind, en.category), result: properties(s)})
           WHERE x.id IS NOT NULL] AS results
RETURN run {.*} AS run, results[..$limit] AS results
