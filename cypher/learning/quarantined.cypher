// The agent's quarantined entries (the hallucination firewall's) with the entries they were found to
// contradict, each with its effective confidence at the cycle's clock and the regime it holds in: the
// Curator reviews them (a contradiction that no longer stands releases the entry).
:param agent_id => 'golem-1';
:param now => 1700000000000;
:param floor => 0.05;
MATCH (e:Entry {agent_id: $agent_id, status: 'quarantined'})
OPTIONAL MATCH (d:AdmissionDecision)-[:DECIDED]->(e)
WITH e, [x IN collect(d.contradicted) WHERE x IS NOT NULL | x] AS lists
WITH e, reduce(acc = [], l IN lists | acc + l) AS named
CALL (e, named) {
  UNWIND named AS cid
  MATCH (c:Entry {id: cid})
  WITH c, CASE WHEN c.half_life_ms IS NULL THEN 1.0
              ELSE exp(-toFloat(CASE WHEN $now > c.last_accessed_at THEN $now - c.last_accessed_at ELSE 0 END)
                       / (c.half_life_ms * CASE WHEN c.strength > 1.0 THEN c.strength ELSE 1.0 END)) END AS retention
  RETURN collect({id: c.id, status: c.status, market_regime: c.market_regime,
                  effective: CASE WHEN c.confidence * retention < $floor THEN $floor ELSE c.confidence * retention END})
         AS contradicted
}
RETURN e {.id, .category, .status, .confidence, .scope, .market_regime, .in_playbook, .provenance,
          .validated_count} AS entry, contradicted
ORDER BY e.id
