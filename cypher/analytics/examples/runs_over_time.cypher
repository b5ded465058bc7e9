// How an entity's written PageRank moved across runs (POST /analytics/pagerank with write: true),
// block by block.
:param id => '1:0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419';
MATCH (run:AnalysisRun {algorithm: 'pagerank', graph: 'topology'})-[s:SCORED]->(:Entity {id: $id})
RETURN run.block AS block, run.ran_at AS ran_at, s.score AS score, s.rank AS rank, run.result_count AS out_of
ORDER BY block, ran_at
