// Deletes every node the benchmark did not seed (what a Curator cycle created: the cycle, its
// operations, reflections, deltas, new entries, decisions, audit records, events), with their
// relationships (bench/curator.py's reset between runs).
MATCH (n) WHERE n.bench_seed IS NULL
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS
