// Verified outcomes that name a causal link (episodes with causal_link_id) since the last cycle, for
// the Curator's cross-reference of the causal graph.
:param agent_id => 'golem-1';
:param through => 9999999999999;
MATCH (ep:Episode {agent_id: $agent_id})
WHERE ep.causal_link_id IS NOT NULL AND ep.causal_checked_in IS NULL AND ep.recorded_at <= $through
  AND ep.outcome IN ['positive', 'negative']
RETURN ep.id AS id, ep.causal_link_id AS link_id, ep.outcome = 'positive' AS confirmed
ORDER BY ep.recorded_at, ep.id
