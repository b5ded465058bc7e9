// What a new Curator cycle would have to work on: episodes recorded after the last cycle's watermark,
// and the agent's latest episode (its watermark and tick).
:param agent_id => 'golem-1';
:param since => 0;
MATCH (ep:Episode {agent_id: $agent_id})
WITH max(ep.recorded_at) AS latest, max(ep.tick) AS tick,
     sum(CASE WHEN ep.recorded_at > $since THEN 1 ELSE 0 END) AS new_episodes
RETURN latest, tick, new_episodes
