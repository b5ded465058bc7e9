// The newest written score of an algorithm on the topology for each given entity, from the latest
// run at or before $block that the viewer may see (published by the admin, or its own): centrality
// as a signal for curiosity and retrieval.
:param viewer => '';
:param ids => ['1:0x54586be62e3c3580375ae3723c145253060ca0c2'];
:param algorithm => 'pagerank';
:param block => 21000000;
MATCH (run:AnalysisRun {algorithm: $algorithm, graph: 'topology'})
WHERE run.block <= $block AND (run.owner IS NULL OR run.owner = $viewer)
WITH run ORDER BY run.block DESC, run.ran_at DESC LIMIT 1
UNWIND $ids AS wanted
OPTIONAL MATCH (run)-[s:SCORED]->(:Entity {id: wanted})
RETURN wanted AS id, s.score AS score, s.rank AS rank, run.id AS run_id, run.block AS block,
       run.result_count AS out_of
