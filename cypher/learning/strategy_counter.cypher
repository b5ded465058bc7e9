// One agent's count of a strategy's episodes since its last ExpeL distillation, and the latest of them.
:param agent_id => 'golem-1';
:param strategy => 'dca';
MATCH (s:StrategyCounter {id: $agent_id + '|' + $strategy})
OPTIONAL MATCH (ep:Episode {agent_id: s.agent_id})
WHERE ep.strategy = s.strategy AND ep.recorded_at > s.through
WITH s, max(ep.recorded_at) AS latest
RETURN s {.*} AS counter, latest
