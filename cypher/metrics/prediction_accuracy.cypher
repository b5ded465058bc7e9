// Prediction accuracy: the share of the agent's reflections of the window (by `at`) whose verdict is
// correct (the prediction was within its tolerance). Null without reflections. A reflection on an episode without
// a prediction (its snapshots and invariants only) has no verdict and does not count.
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 604800000;
MATCH (r:Reflection {agent_id: $agent_id})
WHERE r.at > $now - $window_ms AND r.at <= $now AND r.verdict IS NOT NULL
WITH count(r) AS reflections, count(CASE WHEN r.verdict = 'correct' THEN 1 END) AS correct
RETURN CASE WHEN reflections = 0 THEN null ELSE toFloat(correct) / reflections END AS value,
       {reflections: reflections, correct: correct} AS detail
