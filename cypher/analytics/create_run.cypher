// One analysis run: the algorithm, its parameters (JSON), the graph it ran on, the block and known-at
// of the projection, when it ran and how long it took. Results hang from it as SCORED
// relationships (write_scores.cypher), so runs can be compared over time; nothing is overwritten.
:param run => {id: 'run-1', algorithm: 'pagerank', graph: 'topology', parameters: '{}', block: 21000000, known_at: null, agent_id: null, ran_at: 1700000000000, duration_ms: 12.5, node_count: 10, relationship_count: 20, result_count: 10, actor: 'admin'};
MERGE (run:AnalysisRun {id: $run.id})
  ON CREATE SET run = $run
RETURN run.id AS id
