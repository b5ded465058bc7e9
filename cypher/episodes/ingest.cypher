// Idempotent batch write of episodes (MERGE on the client-supplied id). Only episodes this
// call creates get their embedding and mentions; re-sent ones are left as they were.
// Each created episode carries the id of the audit record that created it. An entity a mention
// creates is never public: it is visible to who may see an item that mentions it.
:param audit_id => 'audit-1';
:param now => 1700000000000;
:param rows => [{id: 'ep-1', props: {agent_id: 'agent-a', type: 'observation', text: 'WETH borrow rate spiked'}, embedding: [], mentions: [{id: '1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', kind: 'Token', props: {name: 'WETH'}}]}];
UNWIND $rows AS row
MERGE (e:Episode {id: row.id})
  ON CREATE SET e += row.props, e.audit_id = $audit_id
WITH e, row
WHERE e.audit_id = $audit_id
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
CALL (e, row) {
  UNWIND row.mentions AS m
  MERGE (en:Entity {id: m.id})
    ON CREATE SET en += m.props, en.recorded_at = $now, en.public = false, en.creators = []
  SET en:$(m.kind)
  MERGE (e)-[:MENTIONS]->(en)
}
CALL (e, row) {
  WITH e, row WHERE row.follows IS NOT NULL
  MATCH (prev:Episode {id: row.follows})
  MERGE (e)-[:FOLLOWS]->(prev)
}
RETURN e.id AS id
