// Changes to some items after a time that a rollback would roll over (graph/audit/rollback.py): the agent's
// records touching them, not among those it undoes, not undone already, not alerts or their acknowledgements,
// not the decay system's status transitions (a status follows from what the rollback restores: the next run
// records it); oldest first.
:param agent_id => 'agent-a';
:param since => 0;
:param items => [];
:param excluded => [];
:param verbs => ['ALERT'];
:param actions => ['alert.acknowledge', 'memory.decay'];
MATCH (a:AuditRecord)
WHERE a.agent_id = $agent_id AND a.at >= $since AND any(i IN a.target_ids WHERE i IN $items)
  AND NOT a.id IN $excluded AND a.reverted_by IS NULL AND NOT coalesce(a.verb, '') IN $verbs
  AND NOT a.action IN $actions
RETURN a {.id, .at, .actor, .action, .tag, .target_ids, .summary} AS record
ORDER BY a.at, a.id
