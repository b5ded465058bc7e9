// Archive memories (section 8.3, on confirmation): each leaves the Episode label, so no search path
// finds it (the vector and full-text indexes, lists, counts, the graph backend), and keeps everything
// else; its crystal lifecycle moves to archived (the state it had is kept for a restore); the relations every
// source of which is now archived are archived with them (kept, hidden).
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
:param now => 1770000000000;
:param actor => 'key-1';
:param audit_id => 'audit-1';
MATCH (m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id AND m.archived_at IS NULL
REMOVE m:Episode
SET m.archived_at = $now, m.archived_by = $actor, m.archive_audit_id = $audit_id,
    m.lifecycle_before_archive = coalesce(m.lifecycle, 'generated'), m.lifecycle_at_before_archive = m.lifecycle_at,
    m.lifecycle_reason_before_archive = m.lifecycle_reason,
    m.lifecycle = 'archived', m.lifecycle_at = $now, m.lifecycle_reason = 'forgotten'
WITH collect(m) AS ms
CALL (ms) {
  UNWIND ms AS m
  MATCH (m)-[:MENTIONS]->(:Entity)-[f:CUSTOM]-()
  WHERE m.id IN f.sources AND f.archived_at IS NULL AND f.agent_id = $agent_id
  WITH DISTINCT f
  WHERE all(s IN f.sources WHERE EXISTS { MATCH (x:Memory {id: s}) WHERE x.archived_at IS NOT NULL })
  SET f.archived_at = $now, f.archive_audit_id = $audit_id
  RETURN collect(f.id) AS relations
}
RETURN [m IN ms | m.id] AS archived, relations
