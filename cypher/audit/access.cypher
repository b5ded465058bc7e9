// One access record per read that marks what it returned as accessed (retrieval for a decision),
// written in the transaction that marks them; not an audit record: nothing to revert.
// `at`: when the read happened (valid time); `recorded_at`: when it was written.
:param access => {id: 'ac1', at: 0, recorded_at: 0, action: 'retrieval.for_decision', agent_id: 'golem-1', ids: ['ep-1'], count: 1, touched: 1};
CREATE (a:AccessRecord)
SET a = $access
RETURN a.id AS id
