// One episode with the entities it mentions (the embedding is left out).
:param id => 'ep-1';
MATCH (e:Episode {id: $id})
RETURN apoc.map.removeKey(properties(e), 'embedding') AS episode,
       [(e)-[:MENTIONS]->(en:Entity) | en {.id, .kind, .name}] AS mentions
