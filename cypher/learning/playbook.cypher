// What PLAYBOOK.md shows for an agent: its active heuristics promoted into the playbook (and the
// active warnings it must heed), with their evidence.
:param admin => true;
:param viewer => '';
:param agent_id => 'golem-1';
MATCH (e:Entry {agent_id: $agent_id})
WHERE ($admin OR e.agent_id = $viewer) AND e.status = 'active'
  AND ((e:Heuristic AND e.in_playbook = true) OR e:Warning)
OPTIONAL MATCH (e)-[:DERIVED_FROM]->(ep:Episode)
WITH e, count(ep) AS episodes
RETURN e {.id, .category, .content, .confidence, .validated_count, .contradicted_count, .provenance, .strategy,
          .market_regime, .revision, .source_golem_id, .sensitivity} AS entry, episodes
ORDER BY e.strategy, e.category, e.confidence DESC, e.id
