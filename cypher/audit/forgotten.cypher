// "Why did you forget about X?" (section 12.7): the agent's archived memories whose text has every term (a person
// archived them, or the decay system recorded them archived: graph/memory/decay_status.py), and the records that
// archived, deleted or decayed them (or whose summary names X), newest first.
// Each record with the fields cypher/audit/trail.cypher gives it (graph/audit/trail.py StoredRecord).
:param agent_id => 'agent-a';
:param terms => ['painting'];
:param verbs => ['ARCHIVE', 'DELETE', 'DECAY'];
:param actions => ['memory.archive', 'memory.delete', 'curator.decay'];
:param limit => 50;
CALL () {
  MATCH (m:Memory {agent_id: $agent_id})
  WHERE (m.archived_at IS NOT NULL OR m.decay_status = 'archived') AND all(t IN $terms WHERE toLower(m.text) CONTAINS t)
  RETURN collect(m.id) AS ids, collect(m {.id, .text, .archived_at, .decay_status}) AS memories
}
CALL (ids) {
  MATCH (a:AuditRecord {agent_id: $agent_id})
  WHERE (a.verb IN $verbs OR (a.verb IS NULL AND a.action IN $actions))
    AND (any(i IN a.target_ids WHERE i IN ids) OR all(t IN $terms WHERE toLower(a.summary) CONTAINS t))
  WITH a ORDER BY a.at DESC, a.id DESC LIMIT $limit
  OPTIONAL MATCH (k:ApiKey {id: a.actor})
  RETURN collect({record: a {.id, .at, .actor, .agent_id, .action, .verb, .tag, .trigger, .approval, .target_ids,
                             .summary, .before_versions, .after_versions, .reverted_by, .channel, .redaction},
                  key_agent: k.agent_id, key_scopes: coalesce(k.scopes, [])}) AS records
}
RETURN memories, records
