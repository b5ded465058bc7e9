// Settle imported memories (graph/memory/workspace.py): each one written by an import gets the decay inputs
// its files give (decay-scores.json: base relevance, last access, access count, pinned), the status they give
// and its workspace key and properties (a label, a day, Learned From lines). Only memories not settled yet: a
// retried import completes, and a memory used since it was imported keeps its accesses. Returns what each had
// before.
:param agent_id => 'agent-a';
:param rows => [{id: 'mem-1', props: {access_count: 2, last_accessed_at: 1770048000000, base_relevance: 1.0, pinned: false, workspace_key: 'episode:2026-02-02:14:30', workspace_hash: 'e3b0c442'}}];
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.agent_id = $agent_id AND m.workspace_key IS NULL
WITH m, row, m {.access_count, .last_accessed_at, .base_relevance, .pinned, .decay_status, .decay_status_at} AS before
SET m += row.props
RETURN m.id AS id, before
