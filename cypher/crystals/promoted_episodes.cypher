// A resumed consolidation run's phase 3 (Episode): the promoted crystals the run's scoring left activated (importance
// above the promote threshold, scored at or after the run began), a page in id order — what the scoring pages
// would have handed the merge had the run not been interrupted.
:param after => '';
:param batch => 1000;
:param promote => 0.7;
:param since => 0;
MATCH (c:Episode)
WHERE c.id > $after AND c.lifecycle = 'activated' AND c.importance_score > $promote
  AND c.importance_at >= $since
RETURN c.id AS id
ORDER BY c.id
LIMIT $batch
