// The records a rollback undid, marked with its own record's id (cleared when the rollback is undone).
:param ids => [];
:param by => 'audit-1';
MATCH (a:AuditRecord) WHERE a.id IN $ids
SET a.reverted_by = $by
RETURN count(*) AS marked
