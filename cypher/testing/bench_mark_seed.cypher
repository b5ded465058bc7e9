// Marks every node as part of the benchmark's input (bench/curator.py): a reset deletes the others.
MATCH (n) WHERE n.bench_seed IS NULL
CALL (n) { SET n.bench_seed = true } IN TRANSACTIONS OF 1000 ROWS
