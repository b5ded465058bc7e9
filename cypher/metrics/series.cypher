// One agent's daily samples, optionally of one metric and between two days (inclusive), for plotting.
// Samples are their agent's own: the owner or an admin.
:param agent_id => 'golem-1';
:param name => null;
:param since => null;
:param until => null;
:param viewer => 'golem-1';
:param admin => false;
MATCH (s:MetricSample {agent_id: $agent_id})
WHERE ($admin OR s.agent_id = $viewer)
  AND ($name IS NULL OR s.name = $name) AND ($since IS NULL OR s.day >= $since) AND ($until IS NULL OR s.day <= $until)
RETURN s.name AS name, s.day AS day, s.value AS value, s.at AS at
ORDER BY name, day
