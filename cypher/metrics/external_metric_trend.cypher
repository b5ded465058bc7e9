// External metric trend: the sum of the gain of the agent's episodes of the window (by valid_from;
// null without any), the largest fall of their cumulative gain (from 0, in valid_from order) below
// its running peak, and this metric's daily samples of the days from $history_from to before $day.
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 2592000000;
:param day => '2026-01-01';
:param history_from => '2025-12-18';
CALL () {
  MATCH (e:Episode {agent_id: $agent_id})
  WHERE e.gain IS NOT NULL AND e.valid_from > $now - $window_ms AND e.valid_from <= $now
  WITH e ORDER BY e.valid_from, e.id
  RETURN collect(toFloat(e.gain)) AS gains
}
CALL () {
  MATCH (s:MetricSample {agent_id: $agent_id, name: 'external_metric_trend'})
  WHERE s.day >= $history_from AND s.day < $day
  WITH s ORDER BY s.day
  RETURN collect({day: s.day, value: s.value}) AS history
}
WITH gains, history,
     reduce(s = {cum: 0.0, peak: 0.0, drawdown: 0.0}, g IN gains | {
       cum: s.cum + g,
       peak: CASE WHEN s.cum + g > s.peak THEN s.cum + g ELSE s.peak END,
       drawdown: CASE WHEN s.peak - (s.cum + g) > s.drawdown THEN s.peak - (s.cum + g) ELSE s.drawdown END
     }) AS run
RETURN CASE WHEN size(gains) = 0 THEN null ELSE run.cum END AS value,
       {episodes: size(gains), max_drawdown: CASE WHEN size(gains) = 0 THEN null ELSE run.drawdown END} AS detail,
       history
