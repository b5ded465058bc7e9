// The episodes one pair's exact count needs (graph/topology/cooccurrence_counts.py, checked before a fact is
// inferred): those of one partition and chain, at or before the watermark, that feed an inference and mention
// protocol $a or $b, with which of the two they mention. Reached from the two entities, not from every episode.
:param a => 'pool:a';
:param b => 'pool:b';
:param scope => 'public';
:param agent_id => '';
:param clade => '';
:param chain => '1';
:param mark_at => 1770000000000;
:param mark_id => 'ep-1';
MATCH (en:Entity)<-[:MENTIONS]-(e:Episode) USING INDEX en:Entity(id)
WHERE en.id IN [$a, $b] AND e.block IS NOT NULL AND e.scope = $scope
  AND (e.recorded_at < $mark_at OR (e.recorded_at = $mark_at AND e.id <= $mark_id))
  AND ($scope = 'public' OR ($scope = 'private' AND e.agent_id = $agent_id)
       OR ($scope = 'shared' AND e.clade = $clade))
  AND coalesce(toString(e.chain), '') = $chain
  AND e.archived_at IS NULL AND NOT coalesce(e.lifecycle, '') IN ['archived', 'expired']
  AND coalesce(e.sensitivity, '') <> 'confidential'
RETURN e.id AS id, e.block AS block, collect(DISTINCT en.id) AS protocols
ORDER BY id
