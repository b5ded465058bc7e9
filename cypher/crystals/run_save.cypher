// A consolidation run's record (graph/crystals/consolidation.py): created when the run opens, then its cursor,
// phase counts and status as each of its transactions commits (in that transaction, beside the page's changes).
:param id => 'run-1';
:param props => {status: 'running', phase: 'score', kind: 'Episode', after: ''};
MERGE (r:ConsolidationRun {id: $id})
SET r += $props
RETURN r.id AS id
