// An agent's Reflections in episode order (tests only), with the reasoner that interpreted each.
:param agent_id => 'golem-1';
MATCH (r:Reflection {agent_id: $agent_id})
RETURN r.episode_id AS episode_id, r.verdict AS verdict, r.deviation AS deviation, r.reasoner AS reasoner
ORDER BY r.episode_id
