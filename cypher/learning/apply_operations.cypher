// Curator operations, each applied exactly once: an operation whose id is already stored is skipped
// with its effect (a re-run of an interrupted cycle finds it there), a new one sets the changes it
// carries on its entry. Operations are linked to their cycle and their entry.
:param cycle_id => 'golem-1:cycle:1';
:param token => 'tx-1';
:param ops => [{id: 'golem-1:cycle:1:promote:e-1', entry_id: 'e-1', changes: {status: 'active'}, props: {op: 'PROMOTE', phase: 'promote'}}];
MATCH (c:CuratorCycle {id: $cycle_id})
UNWIND $ops AS op
MERGE (o:CuratorOperation {id: op.id})
  ON CREATE SET o += op.props, o.cycle_id = $cycle_id, o.entry_id = op.entry_id, o.token = $token
WITH c, o, op
WHERE o.token = $token
MERGE (o)-[:IN_CYCLE]->(c)
WITH o, op
OPTIONAL MATCH (e:Entry {id: op.entry_id})
FOREACH (_ IN CASE WHEN e IS NULL THEN [] ELSE [1] END |
  MERGE (o)-[:ON]->(e)
  SET e += op.changes)
RETURN o.id AS id, op.entry_id AS entry_id
