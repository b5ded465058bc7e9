// The learning state of the graph, without clocks or generated ids (tests only): entries' lifecycle
// fields, episodes' consolidation, and each Curator operation's kind, entry and effect.
CALL () {
  MATCH (e:Entry) WHERE coalesce(e.mental_model, false) = false
  RETURN 'entry' AS kind, e.id AS id, [e.status, e.confidence, e.in_playbook, e.scope, e.content, e.revision,
         e.market_regime, e.consecutive_low_confidence, e.validated_count, e.contradicted_count] AS state
  UNION ALL
  MATCH (ep:Episode)
  RETURN 'episode' AS kind, ep.id AS id, [ep.consolidated] AS state
  UNION ALL
  MATCH (o:CuratorOperation)
  RETURN 'op' AS kind, o.id AS id, [o.op, o.entry_id, o.changes, o.cycle_id] AS state
  UNION ALL
  MATCH (d:Delta)
  RETURN 'delta' AS kind, d.id AS id, [d.op, d.entry_id, d.applied_in] AS state
}
RETURN kind, id, state
ORDER BY kind, id
