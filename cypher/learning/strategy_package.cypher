// What a strategy's package holds: the agent's active entries of the strategy (heuristics in the
// playbook, warnings, insights) and the causal links between the agent's entries that touch them. A
// confidential entry is never in a package: it is shared with no one, not even through its owner's artifact.
:param agent_id => 'golem-1';
:param strategy => 'eth-dca';
MATCH (e:Entry {agent_id: $agent_id})
WHERE e.strategy = $strategy AND e.status = 'active' AND coalesce(e.sensitivity, '') <> 'confidential'
OPTIONAL MATCH (e)-[c:CAUSES]-(o:Entry)
WHERE c.agent_id = $agent_id AND coalesce(o.sensitivity, '') <> 'confidential'
WITH e, collect(DISTINCT CASE WHEN c IS NULL THEN null
                              ELSE c {.id, .weight, .evidence, .confidence, .lag_blocks, .lag_ms,
                                      cause: startNode(c).id, effect: endNode(c).id} END) AS links
RETURN e {.id, .category, .content, .confidence, .validated_count, .contradicted_count, .provenance,
          .market_regime, .in_playbook, .revision, .scope} AS entry, links
ORDER BY e.category, e.confidence DESC, e.id
