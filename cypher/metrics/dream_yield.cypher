// Dream yield: the share of the agent's staged context-policy mutations (Loop 3, which the document runs in dream
// cycles) decided in the window (by `decided_at`) that reached validated rather than refuted. Null when none was
// decided.
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 604800000;
MATCH (m:ContextMutation {agent_id: $agent_id})
WHERE m.decided_at > $now - $window_ms AND m.decided_at <= $now
WITH count(m) AS decided, count(CASE WHEN m.status = 'validated' THEN 1 END) AS validated
RETURN CASE WHEN decided = 0 THEN null ELSE toFloat(validated) / decided END AS value,
       {decided: decided, validated: validated} AS detail
