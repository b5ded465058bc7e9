// Reflection consistency: how far the agent's reflections of the window (by `at`) agree when they reflect on the
// same thing again — each recurring prediction (one series in one regime) is regenerated as a new Reflexion
// comparison — measured as the document measures it, the mean pairwise cosine across those reflections, over their
// verdicts (one-hot: the cosine of two verdicts is 1 when they agree, 0 when not), pooled over every pair of one
// series and regime. Null without two reflections with a verdict on one series in one regime.
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 604800000;
MATCH (r:Reflection {agent_id: $agent_id})
WHERE r.at > $now - $window_ms AND r.at <= $now AND r.verdict IS NOT NULL
WITH coalesce(r.series, '') AS series, coalesce(r.regime, '') AS regime, r.verdict AS verdict, count(*) AS n
WITH series, regime, sum(n) AS total, sum(n * (n - 1) / 2) AS agreeing
WITH sum(total * (total - 1) / 2) AS pairs, sum(agreeing) AS agreeing,
     count(CASE WHEN total > 1 THEN 1 END) AS recurring
RETURN CASE WHEN pairs = 0 THEN null ELSE toFloat(agreeing) / pairs END AS value,
       {pairs: pairs, agreeing: agreeing, recurring: recurring} AS detail
