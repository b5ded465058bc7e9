// Each episode's earlier comparisons of its metric for its tool and pair (its series, metric|tool|pair) (the newest $limit, oldest
// first): Reflexion looks for a systematic miss (a calibration pattern) across them, and the two-tier model reads
// the newest one's regime (a regime transition escalates). One read for a batch of episodes.
:param agent_id => 'golem-1';
:param episodes => [{id: 'ep-1', series: 'return_bps|uniswap-swap|WETH/USDC', before: 9999999999999}];
:param limit => 10;
UNWIND $episodes AS q
CALL (q) {
  MATCH (r:Reflection {agent_id: $agent_id, series: q.series})
  WHERE r.valid_from < q.before
  WITH r ORDER BY r.valid_from DESC, r.id DESC LIMIT $limit
  RETURN collect([r.valid_from, r.id, r.expected, r.actual, r.regime]) AS history
}
RETURN q.id AS id, history
