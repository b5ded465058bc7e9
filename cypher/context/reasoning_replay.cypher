// An agent's decisions that kept their reasoning (graph/context/reasoning.py), for dream replay: newest first, or
// the worst outcomes first (a decision with no quality yet last).
:param agent_id => 'golem-1';
:param limit => 50;
:param worst_first => false;
MATCH (d:ContextDecision)
WHERE d.agent_id = $agent_id AND d.reasoning IS NOT NULL AND d.at IS NOT NULL
WITH d ORDER BY CASE WHEN $worst_first THEN coalesce(d.outcome_quality, 2.0) ELSE 0 END ASC, d.at DESC
LIMIT $limit
RETURN d.id AS decision_id, d.at AS at, d.task AS task, d.regime AS regime, d.tick AS tick,
       d.outcome_quality AS outcome_quality, d.prediction_error AS prediction_error, d.reasoning AS reasoning
