// Delta operations the Curator's distillation produces (cluster votes), pending until the cycle nets them.
:param deltas => [{id: 'golem-1:cycle:1:vote:e-1', entry_id: 'e-1', props: {op: 'up', count: 1, source: 'distill'}}];
UNWIND $deltas AS d
MATCH (e:Entry {id: d.entry_id})
MERGE (x:Delta {id: d.id})
  ON CREATE SET x += d.props, x.entry_id = d.entry_id
MERGE (x)-[:ON]->(e)
RETURN count(x) AS deltas
