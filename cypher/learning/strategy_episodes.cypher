// The episodes an ExpeL distillation clusters: the agent's own of one strategy recorded since the strategy's last
// distillation and up to this one's watermark (light fields, as learning/unconsolidated). Only the agent's own:
// what it may see, and nothing of another owner's feeds what it writes. Not an archived or forgotten one, and not
// Reflexion's safety incidents (their source episode already counts).
:param agent_id => 'golem-1';
:param strategy => 'dca';
:param since => -1;
:param through => 9999999999999;
MATCH (ep:Episode {agent_id: $agent_id})
WHERE ep.strategy = $strategy AND ep.recorded_at > $since AND ep.recorded_at <= $through
  AND ep.archived_at IS NULL AND coalesce(ep.lifecycle, '') <> 'archived' AND ep.type <> 'safety_incident'
RETURN ep.id AS id, ep.tool AS tool, ep.chain AS chain, ep.token_pair AS token_pair, ep.regime AS regime,
       ep.strategy AS strategy, ep.outcome AS outcome, ep.gain AS gain, ep.confidence AS confidence,
       ep.tick AS tick, ep.text AS text, ep.valid_from AS valid_from, ep.scope AS scope
ORDER BY ep.valid_from DESC, ep.id
