// Undo an archive: the memories searchable again in the lifecycle state they had, and every archived
// relation one of them asserts.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
MATCH (m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id AND m.archived_at IS NOT NULL
SET m:Episode, m.lifecycle = coalesce(m.lifecycle_before_archive, 'generated'),
    m.lifecycle_at = m.lifecycle_at_before_archive, m.lifecycle_reason = m.lifecycle_reason_before_archive
REMOVE m.archived_at, m.archived_by, m.archive_audit_id, m.lifecycle_before_archive, m.lifecycle_at_before_archive,
       m.lifecycle_reason_before_archive
WITH collect(m) AS ms
CALL (ms) {
  UNWIND ms AS m
  MATCH (m)-[:MENTIONS]->(:Entity)-[f:CUSTOM]-() WHERE m.id IN f.sources AND f.archived_at IS NOT NULL
  WITH DISTINCT f
  REMOVE f.archived_at, f.archive_audit_id
  RETURN count(f) AS relations
}
RETURN [m IN ms | m.id] AS restored, relations
