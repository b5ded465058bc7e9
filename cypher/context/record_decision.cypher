// A decision's outcome record (Loop 1), the Beta beliefs of its categories in its regime moved by its outcome
// (each starting at Beta(2, 2)), and the staged mutations' tallies: a trial's under the mutation it tried, the
// baseline's under the current policy — only a workspace's first decision counts, so one workspace served again
// and again is one trial. Returns each belief and mutation as it was before, for the audit's undo.
:param decision => {id: 'dec-1', agent_id: 'golem-1', at: 1700000000000};
:param beliefs => [];
:param good => 1;
:param bad => 0;
:param trial => null;
:param quality => null;
:param regime => null;
:param tally => true;
:param threshold => 0.3;
MERGE (d:ContextDecision {id: $decision.id})
  ON CREATE SET d += $decision
WITH d
CALL (d) {
  UNWIND $beliefs AS b
  OPTIONAL MATCH (old:ContextBelief {id: b.id})
  WITH b, old {.alpha, .beta} AS before
  MERGE (x:ContextBelief {id: b.id})
    ON CREATE SET x.agent_id = b.agent_id, x.regime = b.regime, x.category = b.category, x.alpha = 2.0,
                  x.beta = 2.0, x.created_at = $decision.at
  SET x.alpha = x.alpha + $good, x.beta = x.beta + $bad, x.updated_at = $decision.at
  // across the filter's threshold, the category comes into a workspace or leaves it: kept workspaces go stale
  WITH b, before, x, coalesce(before.alpha, 2.0) / (coalesce(before.alpha, 2.0) + coalesce(before.beta, 2.0)) AS was
  SET x.crossed_at = CASE WHEN (x.alpha / (x.alpha + x.beta) < $threshold) <> (was < $threshold)
                          THEN $decision.at ELSE x.crossed_at END
  RETURN collect({id: b.id, before: before, alpha: x.alpha, beta: x.beta}) AS beliefs
}
CALL (d) {
  OPTIONAL MATCH (m:ContextMutation)
  WHERE m.agent_id = $decision.agent_id AND m.status = 'staged' AND $quality IS NOT NULL AND $tally
    AND (m.regime IS NULL OR m.regime = $regime) AND ($trial IS NULL OR m.id = $trial)
  WITH m, m {.id, .trials, .trial_quality_sum, .base_n, .base_quality_sum, .alpha, .beta} AS before,
       CASE WHEN coalesce(m.base_n, 0) > 0 THEN m.base_quality_sum / m.base_n
            ELSE coalesce(m.quality_before, 0.5) END AS baseline
  WHERE m IS NOT NULL
  // a trial beats the baseline (the mean quality under the current policy since the mutation was staged): its
  // confidence, Beta(alpha, beta) starting at 0.2, moves up; otherwise down
  SET m.alpha = m.alpha + CASE WHEN m.id = $trial AND $quality > baseline THEN 1 ELSE 0 END,
      m.beta = m.beta + CASE WHEN m.id = $trial AND $quality <= baseline THEN 1 ELSE 0 END,
      m.trials = coalesce(m.trials, 0) + CASE WHEN m.id = $trial THEN 1 ELSE 0 END,
      m.trial_quality_sum = coalesce(m.trial_quality_sum, 0.0) + CASE WHEN m.id = $trial THEN $quality ELSE 0.0 END,
      m.base_n = coalesce(m.base_n, 0) + CASE WHEN $trial IS NULL THEN 1 ELSE 0 END,
      m.base_quality_sum = coalesce(m.base_quality_sum, 0.0) + CASE WHEN $trial IS NULL THEN $quality ELSE 0.0 END
  RETURN collect({id: m.id, before: before, after: m {.trials, .trial_quality_sum, .base_n, .base_quality_sum,
                  .alpha, .beta, .quality_before}}) AS mutations
}
RETURN d.id AS id, beliefs, mutations
