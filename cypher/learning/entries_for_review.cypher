// The agent's entries the PROMOTE and DECAY phases review, with their confidence at the cycle's
// clock (the read-time decay of cypher/entries/*.cypher), in id order from a cursor.
:param agent_id => 'golem-1';
:param now => 1700000000000;
:param floor => 0.05;
:param after => '';
:param limit => 1000;
MATCH (e:Entry {agent_id: $agent_id})
WHERE e.id > $after AND e.status IN ['candidate', 'active'] AND coalesce(e.mental_model, false) = false
  AND coalesce(e.lifecycle, '') <> 'frozen'
WITH e, CASE WHEN e.half_life_ms IS NULL THEN 1.0
             ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                      / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
ORDER BY e.id
LIMIT $limit
RETURN e {.id, .category, .status, .confidence, .in_playbook, .scope, .sensitivity, .propagation_proposed,
          .provenance, .decay_class, .is_bloodstain, .quality_score, .access_count, .consecutive_low_confidence,
          .half_life_ms, .validated_count, .contradicted_count} AS entry,
       CASE WHEN e.confidence * retention < $floor THEN $floor ELSE e.confidence * retention END AS effective
