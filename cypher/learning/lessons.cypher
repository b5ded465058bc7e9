// The agent's standing lessons (entries the Curator distilled) for some cluster keys.
:param agent_id => 'golem-1';
:param keys => ['uniswap-swap|1|WETH/USDC'];
MATCH (e:Entry {agent_id: $agent_id})
WHERE e.lesson_key IN $keys AND e.status IN ['candidate', 'active']
RETURN e {.id, .lesson_key, .market_regime, .evidence_regime, .polarity, .category, .confidence, .content,
          .status, .revision, .revised_at, .created_in, .level} AS lesson
ORDER BY e.id
