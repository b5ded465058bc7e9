// Reflections (verified predictions) not yet validated by a Curator cycle, with the entries they judge.
:param agent_id => 'golem-1';
:param through => 9999999999999;
MATCH (r:Reflection {agent_id: $agent_id})
WHERE r.validated_in IS NULL AND r.recorded_at <= $through
OPTIONAL MATCH (r)-[:PRODUCED]->(:Delta)-[:ON]->(e:Entry)
RETURN r.id AS id, r.verdict AS verdict, r.episode_id AS episode_id, collect(DISTINCT e.id) AS entries
ORDER BY r.id
