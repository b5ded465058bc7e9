// One of an agent's recorded workspaces, the agent's last decision (for the regime it was in) and whether a
// decision was recorded on this workspace already.
:param id => 'ctx-1';
:param agent_id => 'golem-1';
MATCH (a:ContextAssembly {id: $id})
WHERE a.agent_id = $agent_id
CALL (a) {
  OPTIONAL MATCH (d:ContextDecision) WHERE d.agent_id = $agent_id AND d.at IS NOT NULL
  WITH d ORDER BY d.at DESC LIMIT 1
  RETURN d.regime AS last_regime, d.id AS last_decision
}
RETURN a {.id, .task, .phase, .regime, .policy_revision, .mutation_id, .injected, .budgets, .compacted,
          .squeezed} AS assembly, last_regime, last_decision,
       EXISTS { MATCH (x:ContextDecision) WHERE x.assembly_id = $id } AS decided
