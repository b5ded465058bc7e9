// Undo an archive: the memories searchable again, and every archived relation one of them asserts.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
MATCH (m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id AND m.archived_at IS NOT NULL
SET m:Episode
REMOVE m.archived_at, m.archived_by, m.archive_audit_id
WITH collect(m) AS ms
CALL (ms) {
  UNWIND ms AS m
  MATCH (m)-[:MENTIONS]->(:Entity)-[f:CUSTOM]-() WHERE m.id IN f.sources AND f.archived_at IS NOT NULL
  WITH DISTINCT f
  REMOVE f.archived_at, f.archive_audit_id
  RETURN count(f) AS relations
}
RETURN [m IN ms | m.id] AS restored, relations
