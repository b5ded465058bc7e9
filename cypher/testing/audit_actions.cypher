// Every audit record's action, for tests that count what was recorded.
MATCH (a:AuditRecord)
RETURN collect(a.action) AS actions
