// The skills the viewer may see, each at its newest version (deprecated ones only when asked), by category
// and tag, with how many listed skills of their category the viewer sees (their scarcity).
:param category => null;
:param tag => null;
:param include_deprecated => false;
:param limit => 100;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (s:Skill)
WHERE ($admin OR s.agent_id = $viewer OR s.scope = 'public' OR (s.scope = 'shared' AND s.clade = $clade))
  AND ($category IS NULL OR s.skill_category = $category) AND ($tag IS NULL OR $tag IN s.skill_tags)
WITH s.stable_skill_id AS stable_id, s ORDER BY s.skill_version DESC
WITH stable_id, head(collect(s)) AS s
WHERE $include_deprecated OR NOT coalesce(s.deprecated, false)
RETURN apoc.map.removeKeys(properties(s), ['embedding', 'embedding_procedural', 'embedding_causal',
                                           'embedding_entity']) AS skill
ORDER BY s.skill_category, s.stable_skill_id
LIMIT $limit
