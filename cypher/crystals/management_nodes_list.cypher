// Every management node, revoked ones too (their endorsements stay: the audit trail names the key).
MATCH (m:ManagementNode)
RETURN properties(m) AS node
ORDER BY m.created_at, m.id
