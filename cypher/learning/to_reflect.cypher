// Episodes of an agent that carry a verified prediction or a state snapshot after the action (Reflexion's steps
// 1-2) and have no Reflection yet (all of them, or the given ids), with the entries that informed the decision:
// the prediction's own list and the entries the decision's retrieval returned (its AccessRecord), restricted to
// the agent's own entries.
:param agent_id => 'golem-1';
:param ids => null;
:param through => 9999999999999;
:param limit => 1000;
MATCH (ep:Episode {agent_id: $agent_id})
WHERE (ep.prediction_actual IS NOT NULL OR ep.post_state IS NOT NULL) AND ep.recorded_at <= $through
  AND ($ids IS NULL OR ep.id IN $ids)
  AND NOT EXISTS { (:Reflection)-[:REFLECTS_ON]->(ep) }
OPTIONAL MATCH (a:AccessRecord {id: ep.decision_id})
WITH ep, coalesce(ep.informed_by, []) + coalesce(a.ids, []) AS named
CALL (ep, named) {
  UNWIND named AS eid
  MATCH (e:Entry {id: eid, agent_id: $agent_id})
  RETURN collect(DISTINCT e.id) AS informed
}
RETURN ep {.id, .agent_id, .clade, .scope, .sensitivity, .tool, .token_pair, .chain, .regime, .strategy, .outcome,
           .tick, .block, .valid_from, .valid_from_block, .recorded_at, .prediction_metric, .prediction_expected,
           .prediction_actual, .prediction_tolerance, .pre_state, .post_state, .invariants, .emotion_phase} AS episode,
       informed
ORDER BY ep.recorded_at, ep.id
LIMIT $limit
