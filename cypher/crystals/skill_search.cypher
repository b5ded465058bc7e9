// Skills by one of their perspectives (procedural, causal, entity: the index named), nearest first, among
// those the viewer may see; $candidates nearest are read from the index and filtered.
:param index => 'skill_procedural';
:param embedding => [];
:param candidates => 100;
:param k => 10;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
CALL db.index.vector.queryNodes($index, $candidates, $embedding) YIELD node AS s, score
WITH s, score
WHERE $admin OR s.agent_id = $viewer OR s.scope = 'public' OR (s.scope = 'shared' AND s.clade = $clade)
RETURN apoc.map.removeKeys(properties(s), ['embedding', 'embedding_procedural', 'embedding_causal',
                                           'embedding_entity']) AS skill, 2 * score - 1 AS cosine
ORDER BY score DESC
LIMIT $k
