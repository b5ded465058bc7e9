// Idempotent write of admitted (or quarantined) entries: the category is also a label; each
// entry links to the episodes it was derived from.
:param audit_id => 'audit-1';
:param now => 1700000000000;
:param rows => [];
UNWIND $rows AS row
MERGE (e:Entry {id: row.id})
  ON CREATE SET e += row.props, e.audit_id = $audit_id
WITH e, row
WHERE e.audit_id = $audit_id
SET e:$(row.category)
WITH e, row
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
CALL (e, row) {
  UNWIND row.parent_episode_ids AS pid
  MATCH (ep:Episode {id: pid})
  MERGE (e)-[r:DERIVED_FROM]->(ep)
    ON CREATE SET r.at = $now
}
RETURN e.id AS id
