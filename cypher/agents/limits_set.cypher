// An agent's limits per key on each replica (api/admission.py): the three properties set together, a null one
// removed (the service's setting applies); the values before, for the audit record's undo.
:param id => 'golem-1';
:param values => {limit_concurrency: 4, limit_rate_per_s: 2.0, limit_burst: null};
MATCH (a:Agent {id: $id})
WITH a, {limit_concurrency: a.limit_concurrency, limit_rate_per_s: a.limit_rate_per_s,
         limit_burst: a.limit_burst} AS before
SET a += $values
RETURN before
