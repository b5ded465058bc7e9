// Undo an archive: the memories searchable again, the relations archived with them back.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
MATCH (m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id AND m.archived_at IS NOT NULL
WITH m, m.archive_audit_id AS audit_id
SET m:Episode
REMOVE m.archived_at, m.archived_by, m.archive_audit_id
WITH collect(m) AS ms, collect(DISTINCT audit_id) AS audits
CALL (ms, audits) {
  UNWIND ms AS m
  MATCH (m)-[:MENTIONS]->(:Entity)-[f:CUSTOM]-() WHERE m.id IN f.sources AND f.archive_audit_id IN audits
  WITH DISTINCT f
  REMOVE f.archived_at, f.archive_audit_id
  RETURN count(f) AS relations
}
RETURN [m IN ms | m.id] AS restored, relations
