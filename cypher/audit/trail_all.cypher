// Every audit record, the service's own (no agent) included: the admin's trail (cypher/audit/trail.cypher for
// one agent's), newest first through the `at` index.
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
WHERE a.at >= coalesce($since, 0) AND a.at <= coalesce($until, 9223372036854775807)
  AND ($verbs IS NULL OR a.verb IN $verbs OR (a.verb IS NULL AND a.action IN $actions))
  AND ($actor IS NULL OR a.actor = $actor OR a.tag = $actor)
  AND ($tag_prefix IS NULL OR a.tag STARTS WITH $tag_prefix)
  AND ($items IS NULL OR any(i IN a.target_ids WHERE i IN $items))
WITH a ORDER BY a.at DESC, a.id DESC
SKIP $offset LIMIT $limit
OPTIONAL MATCH (k:ApiKey {id: a.actor})
RETURN a {.id, .at, .actor, .agent_id, .action, .verb, .tag, .trigger, .approval, .target_ids, .summary, .before_versions, .after_versions, .reverted_by, .channel, .redaction} AS record,
       k.agent_id AS key_agent, coalesce(k.scopes, []) AS key_scopes
