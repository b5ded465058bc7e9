// After an assertion closed facts (cypher/topology/assert_facts.cypher): for each new fact that closed
// some, the versions it expired (superseded_by it) and the closed copies recorded beside them (closed_by
// it, written by this audit record), so that the audit record names them.
:param audit_id => 'audit-1';
:param rows => [{subject: '1:0xreserve', type: 'ORACLE_DEPENDENCY', fact_id: 'fact-2'}];
UNWIND $rows AS row
MATCH (s:Entity {id: row.subject})-[f]->()
WHERE type(f) = row.type
  AND (f.superseded_by = row.fact_id OR (f.closed_by = row.fact_id AND f.audit_id = $audit_id))
RETURN f.id AS id, type(f) AS type, f.audit_id = $audit_id AS copy
