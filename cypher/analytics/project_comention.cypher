// The co-mention graph: two entities are linked when visible episodes mention both, weighted by
// the number of such episodes (each pair once, a -> b with a.id < b.id; undirected when asked).
// An entity a visible episode mentions is visible. $agent_id narrows it to one agent's episodes;
// $max_mentions drops hubs (a speaker mentioned by every turn links everything to everything),
// counting only the mentions the viewer may see, so what is left out says nothing of the rest.
:param graph_name => 'grimoire-comention-example';
:param agent_id => null;
:param max_mentions => 10000;
:param undirected => ['*'];
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (ep:Episode)-[:MENTIONS]->(a:Entity), (ep)-[:MENTIONS]->(b:Entity)
WHERE a.id < b.id
  AND ($agent_id IS NULL OR ep.agent_id = $agent_id)
  AND ($admin OR ep.agent_id = $viewer OR ep.scope = 'public' OR (ep.scope = 'shared' AND ep.clade = $clade))
WITH a, b, count(DISTINCT ep) AS episodes
WHERE all(x IN [a, b] WHERE COUNT { (x)<-[:MENTIONS]-(m)
    WHERE $admin OR m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade) } <= $max_mentions)
RETURN gds.graph.project($graph_name, a, b, {
  relationshipType: 'CO_MENTIONED',
  relationshipProperties: {weight: toFloat(episodes), cost: 1.0 / episodes}
}, {undirectedRelationshipTypes: $undirected}) AS projection
