// Bulk episodes or entries with precomputed vectors, for benchmarks at scale (no admission).
:param label => 'Episode';
:param rows => [{id: 'b1', props: {text: 'hello', agent_id: 'bench', scope: 'private'}, embedding: [0.1]}];
UNWIND $rows AS row
CREATE (n:$($label) {id: row.id})
SET n += row.props
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
RETURN count(*) AS created
