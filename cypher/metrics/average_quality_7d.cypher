// Average quality score (7d): the mean quality_score of the agent's entries recorded in the window
// (null without any), and this metric's daily samples of the days from $history_from to before $day.
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 604800000;
:param day => '2026-01-01';
:param history_from => '2025-12-25';
CALL () {
  MATCH (e:Entry {agent_id: $agent_id})
  WHERE e.recorded_at > $now - $window_ms AND e.recorded_at <= $now AND e.quality_score IS NOT NULL
  RETURN avg(e.quality_score) AS value, count(e) AS entries
}
CALL () {
  MATCH (s:MetricSample {agent_id: $agent_id, name: 'average_quality_7d'})
  WHERE s.day >= $history_from AND s.day < $day
  WITH s ORDER BY s.day
  RETURN collect({day: s.day, value: s.value}) AS history
}
RETURN value, {entries: entries} AS detail, history
