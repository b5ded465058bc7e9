// What must survive a context compaction for an agent (the Pi hook session(before_compact)), read in
// the agent's own view ($viewer = $agent_id): its active warnings, its own and those shared with its
// clade, most confident first; its playbook heuristics (in_playbook, active), most confident first;
// its last $episodes unconsolidated episodes, newest first. Effective confidence at $now as in
// cypher/entries/effective_confidence.cypher.
:param agent_id => 'golem-1';
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param now => 1700000000000;
:param floor => 0.05;
:param warnings => 50;
:param heuristics => 100;
:param episodes => 20;
CALL () {
  MATCH (e:Entry {category: 'Warning', status: 'active'})
  WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
    AND (e.agent_id = $agent_id OR e.scope = 'shared')
  WITH e,
       CASE WHEN e.half_life_ms IS NULL THEN 1.0
            ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                     / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
  WITH e, CASE WHEN e.confidence * retention < $floor THEN $floor ELSE e.confidence * retention END AS effective
  ORDER BY effective DESC, e.id
  LIMIT $warnings
  RETURN collect(e {.id, .agent_id, .scope, .content, .confidence, .strategy, .market_regime, .is_bloodstain,
                    .recorded_at, effective_confidence: effective, own: e.agent_id = $agent_id}) AS warnings
}
CALL () {
  MATCH (e:Entry {category: 'Heuristic', status: 'active'})
  WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
    AND e.agent_id = $agent_id AND e.in_playbook = true
  WITH e,
       CASE WHEN e.half_life_ms IS NULL THEN 1.0
            ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                     / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
  WITH e, CASE WHEN e.confidence * retention < $floor THEN $floor ELSE e.confidence * retention END AS effective
  ORDER BY effective DESC, e.id
  LIMIT $heuristics
  RETURN collect(e {.id, .agent_id, .scope, .content, .confidence, .strategy, .market_regime, .validated_count,
                    .recorded_at, effective_confidence: effective, own: true}) AS heuristics
}
CALL () {
  MATCH (ep:Episode {agent_id: $agent_id})
  WHERE ($admin OR ep.agent_id = $viewer OR ep.scope = 'public' OR (ep.scope = 'shared' AND ep.clade = $clade))
    AND coalesce(ep.consolidated, false) = false
  WITH ep
  ORDER BY ep.valid_from DESC, ep.recorded_at DESC, ep.id DESC
  LIMIT $episodes
  RETURN collect(ep {.id, .type, .text, .tool, .outcome, .tick, .block, .regime, .strategy, .interrupted,
                     .decision_id, .importance, .valid_from, .recorded_at}) AS episodes
}
RETURN warnings, heuristics, episodes
