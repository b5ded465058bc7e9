// A skill's versions the viewer may see, newest first, with the fields its listing is priced from.
:param stable_id => 'skill:en-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (s:Skill {stable_skill_id: $stable_id})
WHERE $admin OR s.agent_id = $viewer OR s.scope = 'public' OR (s.scope = 'shared' AND s.clade = $clade)
RETURN apoc.map.removeKeys(properties(s), ['embedding', 'embedding_procedural', 'embedding_causal',
                                           'embedding_entity']) AS skill
ORDER BY s.skill_version DESC
