// Reflexion's records, idempotent: one Reflection per episode (the comparison of its prediction with
// the verified outcome) and its pending Delta operations on the entries that informed the decision.
:param rows => [{id: 'reflexion:ep-1', episode_id: 'ep-1', props: {agent_id: 'golem-1', verdict: 'correct'}, deltas: [{id: 'reflexion:ep-1:e-1', entry_id: 'e-1', props: {op: 'up', count: 1}}]}];
:param audit_id => 'audit-1';
UNWIND $rows AS row
MATCH (ep:Episode {id: row.episode_id})
MERGE (r:Reflection {id: row.id})
  ON CREATE SET r += row.props, r.audit_id = $audit_id
WITH r, ep, row
WHERE r.audit_id = $audit_id
MERGE (r)-[:REFLECTS_ON]->(ep)
WITH r, row
CALL (r, row) {
  UNWIND row.deltas AS d
  MATCH (e:Entry {id: d.entry_id})
  MERGE (x:Delta {id: d.id})
    ON CREATE SET x += d.props, x.entry_id = d.entry_id, x.audit_id = $audit_id
  MERGE (x)-[:ON]->(e)
  MERGE (r)-[:PRODUCED]->(x)
  RETURN count(x) AS deltas
}
RETURN r.id AS id, deltas
