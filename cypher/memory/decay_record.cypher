// Record decay status transitions (graph/memory/decay_status.py): each row's memory gets its new status and the
// time it changed, and its DECAY audit record (`row.audit`, the node graph/audit/records.py writes), in this one
// statement. A memory whose recorded status or relevance inputs moved since its row was computed (reinforced,
// pinned, forgotten, recorded by another run) is left to the next run: nothing is written for it.
:param now => 1770000000000;
:param rows => [{id: 'mem-1', recorded: null, to: 'fading', inputs: [1770000000000, 1, false, 'episodic', 0.5], audit: {id: 'a1', at: 1770000000000, actor: 'system:decay', agent_id: 'agent-a', action: 'memory.decay', verb: 'DECAY', tag: 'system:decay', target_ids: ['mem-1'], summary: 'active→fading', revert: '[]', channel: 'scheduler'}}];
UNWIND $rows AS row
MATCH (m:Memory:Episode {id: row.id})
WHERE m.archived_at IS NULL AND coalesce(m.decay_status, '') = coalesce(row.recorded, '')
  AND [coalesce(m.last_accessed_at, m.recorded_at, -1), coalesce(m.access_count, 0), coalesce(m.pinned, false),
       m.store, m.base_relevance] = row.inputs
SET m.decay_status = row.to, m.decay_status_at = $now
CREATE (a:AuditRecord)
SET a = row.audit
RETURN m.id AS id
