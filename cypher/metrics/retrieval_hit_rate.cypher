// Retrieval hit rate: of the agent's retrievals for a decision in the window (AccessRecord, action
// retrieval.for_decision), the share that an episode of the agent names as its decision_id. Null
// without retrievals; `mature` once the agent's first retrieval for a decision is a window old.
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 604800000;
CALL () {
  MATCH (a:AccessRecord {agent_id: $agent_id})
  WHERE a.action = 'retrieval.for_decision' AND a.at <= $now
  RETURN min(a.at) AS first_at,
         collect(CASE WHEN a.at > $now - $window_ms THEN a.id END) AS decisions
}
CALL (decisions) {
  MATCH (e:Episode {agent_id: $agent_id})
  WHERE e.decision_id IS NOT NULL AND e.decision_id IN decisions
  RETURN count(DISTINCT e.decision_id) AS hits
}
RETURN CASE WHEN size(decisions) = 0 THEN null ELSE toFloat(hits) / size(decisions) END AS value,
       {decisions: size(decisions), hits: hits, first_decision_at: first_at,
        mature: first_at IS NOT NULL AND first_at <= $now - $window_ms} AS detail
