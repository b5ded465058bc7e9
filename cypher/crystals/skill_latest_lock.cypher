// The newest version of a skill its owner (or the admin) changes, locked for the transaction, with its kinds.
:param stable_id => 'skill:en-1';
:param viewer => 'golem-1';
:param admin => false;
MATCH (s:Skill {stable_skill_id: $stable_id})
WHERE $admin OR s.agent_id = $viewer
WITH s ORDER BY s.skill_version DESC LIMIT 1
SET s.skill_version = s.skill_version
RETURN apoc.map.removeKeys(properties(s), ['embedding', 'embedding_procedural', 'embedding_causal',
                                           'embedding_entity']) AS skill,
       [l IN labels(s) WHERE l IN ['Episode', 'Memory', 'Entry']] AS kinds
