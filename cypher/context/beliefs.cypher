// An agent's Beta beliefs: per regime and category, how its decisions went with the category in context.
:param agent_id => 'golem-1';
MATCH (b:ContextBelief)
WHERE b.agent_id = $agent_id AND b.regime IS NOT NULL
RETURN b.regime AS regime, b.category AS category, b.alpha AS alpha, b.beta AS beta,
       b.alpha / (b.alpha + b.beta) AS value, b.updated_at AS updated_at
ORDER BY regime, category
