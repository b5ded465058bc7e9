// The successor's copies of inherited links, between its copies of the entries; each copy points
// at the link it came from. Idempotent by id.
:param audit_id => 'audit-1';
:param rows => [{id: 'heir:heir:e1.causes.heir:e2', cause: 'heir:e1', effect: 'heir:e2', props: {}}];
UNWIND $rows AS row
MATCH (a:Entry {id: row.cause}), (b:Entry {id: row.effect})
MERGE (a)-[c:CAUSES {id: row.id}]->(b)
  ON CREATE SET c += row.props, c.audit_id = $audit_id
RETURN c.id AS id, c.audit_id = $audit_id AS created
