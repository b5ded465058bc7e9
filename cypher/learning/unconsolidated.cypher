// The episodes a cycle distils: the agent's unconsolidated ones recorded up to the cycle's watermark
// (light fields; embeddings are read only for clusters that may compress).
:param agent_id => 'golem-1';
:param through => 9999999999999;
MATCH (ep:Episode {agent_id: $agent_id})
WHERE ep.consolidated = false AND ep.recorded_at <= $through
RETURN ep.id AS id, ep.tool AS tool, ep.chain AS chain, ep.token_pair AS token_pair, ep.regime AS regime,
       ep.strategy AS strategy, ep.outcome AS outcome, ep.gain AS gain, ep.confidence AS confidence,
       ep.tick AS tick, ep.text AS text, ep.valid_from AS valid_from, ep.scope AS scope
ORDER BY ep.valid_from DESC, ep.id
