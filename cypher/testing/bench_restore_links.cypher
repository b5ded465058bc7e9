// Causal links back to the properties the benchmark seeded them with (bench/curator.py).
:param rows => [{id: 'bench-link-1', props: {id: 'bench-link-1', weight: 0.6, evidence: 3, confidence: 0.6}}];
UNWIND $rows AS row
MATCH ()-[c:CAUSES {id: row.id}]->()
SET c = row.props
RETURN count(c) AS restored
