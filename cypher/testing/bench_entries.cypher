// Bulk knowledge entries with precomputed vectors and their category label, for the Curator benchmark
// (bench/curator.py; no admission, no audit).
:param rows => [{id: 'bench-entry-1', category: 'Insight', props: {agent_id: 'bench-agent', content: 'hello', status: 'active'}, embedding: [0.1]}];
UNWIND $rows AS row
CREATE (e:Entry {id: row.id})
SET e += row.props
SET e:$(row.category)
WITH e, row
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
RETURN count(*) AS created
