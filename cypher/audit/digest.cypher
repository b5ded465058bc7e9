// One monthly digest by its id (<agent id or _service>:YYYY-MM), if it was written: whether the fold of its
// month has deleted every record yet (graph/audit/retention.py).
:param id => 'agent-a:2026-01';
MATCH (d:AuditDigest {id: $id})
RETURN d.id AS id, d.complete AS complete
