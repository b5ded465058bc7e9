// The strategies whose episodes since their last ExpeL distillation reached the trigger's count (or whose
// distillation is still open: its replica stopped mid-run), oldest count first; one agent's when $agent_id is set.
:param every => 10;
:param agent_id => null;
MATCH (s:StrategyCounter)
WHERE (s.episodes >= $every OR s.open IS NOT NULL) AND ($agent_id IS NULL OR s.agent_id = $agent_id)
OPTIONAL MATCH (a:Agent {id: s.agent_id})
RETURN s.agent_id AS agent_id, s.strategy AS strategy, a.clade AS clade
ORDER BY s.agent_id, s.strategy
