// One episode with the entities it mentions (the embedding is left out; `enrichment` done unless it says pending),
// if the viewer may see it:
// its own, shared within its clade, or public.
:param id => 'ep-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (e:Episode {id: $id})
WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
RETURN apoc.map.merge({enrichment: 'done'}, apoc.map.removeKey(properties(e), 'embedding')) AS episode,
       [(e)-[:MENTIONS]->(en:Entity) | en {.id, .kind, .name}] AS mentions
