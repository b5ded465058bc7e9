// Reflexion's safety_incident episodes (step 2: an invariant that did not hold), idempotent: one per source
// episode (its id derives from the source's), created with its embedding and linked to the source (INCIDENT_OF).
// The properties (owner, clade, scope no wider than the source's) are made by graph/learning/reflexion.py.
:param audit_id => 'audit-1';
:param rows => [{id: 'safety-incident:ep-1', source_id: 'ep-1', props: {agent_id: 'golem-1', type: 'safety_incident', text: 'Safety incident', scope: 'private'}, embedding: []}];
UNWIND $rows AS row
MATCH (src:Episode {id: row.source_id})
MERGE (e:Episode {id: row.id})
  ON CREATE SET e += row.props, e.audit_id = $audit_id
WITH e, src, row
WHERE e.audit_id = $audit_id
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
MERGE (e)-[:INCIDENT_OF]->(src)
RETURN e.id AS id
