// What an assembly reads of the agent before it fetches: its policy (JSON; none before its first revision), its
// last workspace (for the delta and the regime it was for), its Beta beliefs in the regime, its staged mutations.
:param agent_id => 'golem-1';
:param policy_id => 'golem-1:context-policy';
:param regime => 'any';
OPTIONAL MATCH (p:ContextPolicy {id: $policy_id})
CALL () {
  OPTIONAL MATCH (a:ContextAssembly) WHERE a.agent_id = $agent_id AND a.at IS NOT NULL
  WITH a ORDER BY a.at DESC LIMIT 1
  RETURN a {.id, .regime, .injected, .total_tokens} AS previous
}
CALL () {
  OPTIONAL MATCH (b:ContextBelief) WHERE b.agent_id = $agent_id AND b.regime = $regime
  RETURN collect(b {.category, .alpha, .beta}) AS beliefs
}
CALL () {
  OPTIONAL MATCH (m:ContextMutation) WHERE m.agent_id = $agent_id AND m.status = 'staged'
  WITH m ORDER BY m.created_at
  RETURN collect(m {.id, .proposed, .offered, .regime}) AS mutations
}
RETURN p.policy AS policy, previous, beliefs, mutations
