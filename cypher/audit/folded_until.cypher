// Up to when an agent's trail is folded into digests: the end of its latest digested month (null: none). A
// point-in-time rollback cannot reach behind it.
:param agent_id => 'agent-a';
MATCH (d:AuditDigest {agent_id: $agent_id})
RETURN max(d.end) AS until
