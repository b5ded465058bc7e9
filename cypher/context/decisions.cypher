// An agent's decision records (Loop 1), newest first.
:param agent_id => 'golem-1';
:param limit => 50;
MATCH (d:ContextDecision)
WHERE d.agent_id = $agent_id AND d.at IS NOT NULL
WITH d ORDER BY d.at DESC LIMIT $limit
RETURN d {.id, .assembly_id, .at, .task, .phase, .regime, .policy_revision, .mutation_id, .injected_tokens,
          .referenced, .influenced, .outcome_quality, .cost, .over_contexted, .missing, .tick, .model_tier,
          .reasoning} AS decision
