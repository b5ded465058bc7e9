// One agent's audit trail (graph/audit/trail.py), newest first: filtered by time, verb (records written before
// verbs were stored are found by their action, $actions), actor (key id or tag), tag prefix ('reflection:') and
// an item among the targets; each with the key that acted, so the trail can say in what role (a person's key:
// manual). The (agent_id, at) index gives the records in time order; the range on `at` lets it.
:param agent_id => 'agent-a';
:param since => null;
:param until => null;
:param verbs => null;
:param actions => null;
:param actor => null;
:param tag_prefix => null;
:param items => null;
:param offset => 0;
:param limit => 50;
MATCH (a:AuditRecord)
WHERE a.agent_id = $agent_id AND a.at >= coalesce($since, 0) AND a.at <= coalesce($until, 9223372036854775807)
  AND ($verbs IS NULL OR a.verb IN $verbs OR (a.verb IS NULL AND a.action IN $actions))
  AND ($actor IS NULL OR a.actor = $actor OR a.tag = $actor)
  AND ($tag_prefix IS NULL OR a.tag STARTS WITH $tag_prefix)
  AND ($items IS NULL OR any(i IN a.target_ids WHERE i IN $items))
// Ordered by the index's own keys (agent_id is one value here) so the plan reads it newest first and stops at
// the limit (PartialTop) instead of sorting the agent's every record.
WITH a ORDER BY a.agent_id DESC, a.at DESC, a.id DESC
SKIP $offset LIMIT $limit
OPTIONAL MATCH (k:ApiKey {id: a.actor})
RETURN a {.id, .at, .actor, .agent_id, .action, .verb, .tag, .trigger, .approval, .target_ids, .summary, .before_versions, .after_versions, .reverted_by, .channel, .redaction} AS record,
       k.agent_id AS key_agent, coalesce(k.scopes, []) AS key_scopes
