// An agent's decision records (Loop 1) after $since, the newest $limit, as Loop 2 reads them.
:param agent_id => 'golem-1';
:param since => 0;
:param limit => 500;
MATCH (d:ContextDecision)
WHERE d.agent_id = $agent_id AND d.at > $since
WITH d ORDER BY d.at DESC LIMIT $limit
RETURN d.id AS id, d.at AS at, d.regime AS regime, d.injected_tokens AS injected, d.influenced AS influenced,
       d.outcome_quality AS outcome_quality, d.cost AS cost, d.missing AS missing
