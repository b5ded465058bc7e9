// The agent's pending deltas, netted per entry: votes (up, down) and prediction adjustments (correct,
// wrong), with the entry's state and the deltas' ids and source episodes.
:param agent_id => 'golem-1';
:param ops => ['up', 'down'];
:param limit => 1000;
MATCH (x:Delta)-[:ON]->(e:Entry {agent_id: $agent_id})
WHERE x.applied_in IS NULL AND x.op IN $ops
WITH e, x ORDER BY e.id, x.id
WITH e, collect(x) AS ds
ORDER BY e.id
LIMIT $limit
RETURN e {.id, .confidence, .validated_count, .contradicted_count, .last_accessed_at, .category, .half_life_ms,
          .live_confirmed, .dream_validated, .provenance} AS entry,
       [d IN ds | d {.id, .op, .count, .source, .verdict, .episode_ids}] AS deltas
