// Episodes the viewer may see, by owner, type, regime and either time axis, newest first.
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param agent_id => null;
:param type => null;
:param regime => null;
:param valid_from => null;
:param valid_to => null;
:param recorded_from => null;
:param recorded_to => null;
:param offset => 0;
:param limit => 50;
MATCH (e:Episode)
WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
  AND ($agent_id IS NULL OR e.agent_id = $agent_id)
  AND ($type IS NULL OR e.type = $type)
  AND ($regime IS NULL OR e.regime = $regime)
  AND ($valid_from IS NULL OR e.valid_from >= $valid_from)
  AND ($valid_to IS NULL OR e.valid_from < $valid_to)
  AND ($recorded_from IS NULL OR e.recorded_at >= $recorded_from)
  AND ($recorded_to IS NULL OR e.recorded_at < $recorded_to)
RETURN apoc.map.merge({enrichment: 'done'}, apoc.map.removeKey(properties(e), 'embedding')) AS episode,
       [(e)-[:MENTIONS]->(en:Entity) | en {.id, .kind, .name}] AS mentions
ORDER BY e.valid_from DESC, e.id
SKIP $offset LIMIT $limit
