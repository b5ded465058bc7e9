// A digest whose month has no record left: complete.
:param id => 'agent-a:2026-01';
MATCH (d:AuditDigest {id: $id})
SET d.complete = true
RETURN d.id AS id
