// A batch of a run's results: (run)-[:SCORED {score, rank, community, component, embedding,
// similar_to, similarities}]->(node); only the keys an algorithm produces are set.
:param run_id => 'run-1';
:param rows => [{id: '1:0x54586be62e3c3580375ae3723c145253060ca0c2', props: {score: 0.5, rank: 1}}];
MATCH (run:AnalysisRun {id: $run_id})
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Entity {id: row.id}) RETURN n
  UNION
  MATCH (n:Entry {id: row.id}) RETURN n
}
MERGE (run)-[s:SCORED]->(n)
SET s += row.props
RETURN count(s) AS written
