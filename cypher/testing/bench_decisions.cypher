// Admission decisions that quarantined benchmark entries, naming the entries they contradicted
// (bench/curator.py): what the Curator's PROMOTE phase reviews.
:param rows => [{entry_id: 'bench-entry-1', props: {id: 'bench-decision-1', agent_id: 'bench-agent', outcome: 'quarantined', contradicted: ['bench-entry-2']}}];
UNWIND $rows AS row
MATCH (e:Entry {id: row.entry_id})
CREATE (d:AdmissionDecision)-[:DECIDED]->(e)
SET d = row.props
RETURN count(d) AS created
