// The audit records a rollback undoes (graph/audit/rollback.py), newest first: one agent's, from a time on,
// by tag, by actor (key id or tag), of one session, touching some items, or named; those already undone left out unless asked
// ($include_reverted: a point-in-time restore undoes everything after its time, undoings included).
:param agent_id => 'agent-a';
:param since => null;
:param tag => null;
:param actor => null;
:param items => null;
:param ids => null;
:param rollback_id => null;
:param session_id => null;
:param include_reverted => false;
:param limit => 20000;
MATCH (a:AuditRecord)
WHERE a.agent_id = $agent_id AND a.at >= coalesce($since, 0)
  AND ($tag IS NULL OR a.tag = $tag)
  AND ($actor IS NULL OR a.actor = $actor OR a.tag = $actor)
  AND ($items IS NULL OR any(i IN a.target_ids WHERE i IN $items))
  AND ($ids IS NULL OR a.id IN $ids)
  AND ($rollback_id IS NULL OR a.rollback_id = $rollback_id)
  AND ($session_id IS NULL OR a.session_id = $session_id)
  AND ($include_reverted OR a.reverted_by IS NULL)
WITH a ORDER BY a.agent_id DESC, a.at DESC, a.id DESC
LIMIT $limit
RETURN a {.id, .at, .actor, .action, .verb, .tag, .target_ids, .summary, .revert, .reverted_by, .after_versions,
          .rollback_id} AS record
