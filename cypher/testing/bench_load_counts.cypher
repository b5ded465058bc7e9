// The load benchmark's seeded store (bench/load.py): its episodes and entries, counted once the load has
// finished and marked them (bench_seed), so an interrupted load counts as none.
MATCH (n) WHERE n.bench_seed = true AND (n:Episode OR n:Entry)
RETURN count(CASE WHEN n:Episode THEN 1 END) AS episodes, count(CASE WHEN n:Entry THEN 1 END) AS entries
