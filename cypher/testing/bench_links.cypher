// Causal links between benchmark entries (bench/curator.py), with their evidence.
:param rows => [{cause: 'bench-entry-1', effect: 'bench-entry-2', props: {id: 'bench-link-1', weight: 0.6, evidence: 3, confidence: 0.6}}];
UNWIND $rows AS row
MATCH (a:Entry {id: row.cause}), (b:Entry {id: row.effect})
CREATE (a)-[c:CAUSES]->(b)
SET c = row.props
RETURN count(c) AS created
