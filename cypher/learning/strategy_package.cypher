// What a strategy's package holds: the agent's active entries of the strategy (heuristics in the
// playbook, warnings, insights) and the causal links between the agent's entries that touch them.
:param agent_id => 'golem-1';
:param strategy => 'eth-dca';
MATCH (e:Entry {agent_id: $agent_id})
WHERE e.strategy = $strategy AND e.status = 'active'
OPTIONAL MATCH (e)-[c:CAUSES]-(o:Entry)
WHERE c.agent_id = $agent_id
WITH e, collect(DISTINCT CASE WHEN c IS NULL THEN null
                              ELSE c {.id, .weight, .evidence, .confidence, .lag_blocks, .lag_ms,
                                      cause: startNode(c).id, effect: endNode(c).id} END) AS links
RETURN e {.id, .category, .content, .confidence, .validated_count, .contradicted_count, .provenance,
          .market_regime, .in_playbook, .revision} AS entry, links
ORDER BY e.category, e.confidence DESC, e.id
