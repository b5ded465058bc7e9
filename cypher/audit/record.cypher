// One audit record per mutation, written in the same transaction as the change it describes.
// `revert` is a JSON list of typed revert operations (graph/audit/revert.py): what undoes it.
:param audit => {id: 'a1', at: 0, actor: 'cli', agent_id: 'agent-a', action: 'episode.ingest', verb: 'APPEND', tag: null, trigger: null, approval: null, target_ids: [], summary: '', revert: '[]', channel: 'rest'};
CREATE (a:AuditRecord)
SET a = $audit
RETURN a.id AS id
