// Each strategy's record over an agent's decided episodes (positive or negative outcomes): the
// Performance-Safety Ratio's inputs — how many went well, and how many went badly at critical or
// emergency importance (the safety failures).
:param agent_id => 'golem-1';
:param since => 0;
MATCH (ep:Episode {agent_id: $agent_id})
WHERE ep.strategy IS NOT NULL AND ep.outcome IN ['positive', 'negative'] AND ep.valid_from >= $since
RETURN ep.strategy AS strategy, count(*) AS decided,
       sum(CASE WHEN ep.outcome = 'positive' THEN 1 ELSE 0 END) AS positives,
       sum(CASE WHEN ep.outcome = 'negative' AND ep.importance IN ['critical', 'emergency'] THEN 1 ELSE 0 END)
         AS safety_failures
ORDER BY strategy
