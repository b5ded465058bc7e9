// Admission rate (graph/metrics/catalog.py): the share of the agent's admission decisions of the
// window that passed the gate (admitted, admitted_low, merged). Null without decisions.
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 604800000;
MATCH (a:AdmissionDecision {agent_id: $agent_id})
WHERE a.at > $now - $window_ms AND a.at <= $now
WITH count(a) AS decisions,
     count(CASE WHEN a.outcome IN ['admitted', 'admitted_low', 'merged'] THEN 1 END) AS passing
RETURN CASE WHEN decisions = 0 THEN null ELSE toFloat(passing) / decisions END AS value,
       {decisions: decisions, passing: passing} AS detail
