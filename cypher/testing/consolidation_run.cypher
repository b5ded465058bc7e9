// A consolidation run's record and the actions of the audit records that name it (tag consolidation:<id>).
:param id => 'run-1';
MATCH (r:ConsolidationRun {id: $id})
OPTIONAL MATCH (a:AuditRecord {tag: 'consolidation:' + $id})
WITH r, a ORDER BY a.at, a.id
RETURN r {.*} AS run, collect(a.action) AS actions, collect(a.target_ids) AS targets
