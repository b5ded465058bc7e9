// Grimoire size: the agent's active entries, and this metric's daily samples of the days from
// $history_from to before $day (growth is judged on them).
:param agent_id => 'golem-1';
:param day => '2026-01-01';
:param history_from => '2025-12-25';
CALL () {
  MATCH (e:Entry {agent_id: $agent_id})
  WHERE e.status = 'active'
  RETURN count(e) AS size
}
CALL () {
  MATCH (s:MetricSample {agent_id: $agent_id, name: 'grimoire_size'})
  WHERE s.day >= $history_from AND s.day < $day
  WITH s ORDER BY s.day
  RETURN collect({day: s.day, value: s.value}) AS history
}
RETURN size AS value, {} AS detail, history
