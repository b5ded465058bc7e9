// Phase 1 and 2 of a consolidation pass over one page of entries (graph/crystals/consolidation.py): each
// generated or activated crystal's importance recalculated from scratch, I = f(n)·e^(−λ_eff·Δt) with
// f(n) = 1 − e^(−0.1(n+1)) and λ_eff = rate·(1 − |valence|·emotion)·(1 − the owner's hormonal decay
// resistance), Δt since its last access and n its access count — a decision's (access_count,
// last_accessed_at) and every other read's (read_count, last_read_at: searches, retrievals, reads by id); and the
// move it calls for: below the forget threshold a generated crystal expires and an activated one is archived
// (lifespan decay only — a crystal written before lifespans is permanent; never a skill, and never what the
// seed keeps: a structural entry, a bloodstain, a warning, a playbook heuristic, which leaves only by the
// Curator's rules); a generated crystal that has been accessed and scores above the
// promote threshold is activated. Pages follow the id order; a page with nothing to score still says where it ended.
:param after => '';
:param batch => 1000;
:param now => 1770000000000;
:param rate => 5e-10;
:param emotion => 0.5;
:param forget => 0.02;
:param promote => 0.7;
:param resistance => {};
:param default_resistance => 0.056;
MATCH (c:Entry) WHERE c.id > $after
WITH c ORDER BY c.id LIMIT $batch
WITH collect(c) AS page
WITH page, CASE WHEN size(page) = 0 THEN null ELSE page[size(page) - 1].id END AS last
CALL (page) {
  UNWIND page AS c
  WITH c WHERE coalesce(c.lifecycle, 'generated') IN ['generated', 'activated']
  WITH c, coalesce($resistance[c.agent_id], $default_resistance) AS r,
       CASE WHEN c.last_read_at > coalesce(c.last_accessed_at, c.recorded_at, 0) THEN c.last_read_at
            ELSE coalesce(c.last_accessed_at, c.recorded_at, $now) END AS touched,
       coalesce(c.access_count, 0) + coalesce(c.read_count, 0) AS n
  WITH c, n, (1.0 - exp(-0.1 * (n + 1)))
       * exp(-$rate * (1.0 - abs(coalesce(c.emotional_valence, 0.0)) * $emotion) * (1.0 - r)
             * CASE WHEN $now > touched THEN $now - touched ELSE 0 END) AS score
  SET c.importance_score = score, c.importance_at = $now
  WITH c, n, score, coalesce(c.lifecycle, 'generated') AS state,
       coalesce(c.lifespan, 'permanent') = 'decay' AND NOT c:Skill AND coalesce(c.semantic_type, '') <> 'skill'
         AND NOT (coalesce(c.decay_class, '') = 'structural' OR coalesce(c.is_bloodstain, false)
                OR coalesce(c.category, '') = 'Warning'
                OR coalesce(c.in_playbook, false)) AS decays
  WITH c, score, state, CASE
         WHEN decays AND score < $forget AND state = 'generated' THEN 'expired'
         WHEN decays AND score < $forget AND state = 'activated' THEN 'archived'
         WHEN state = 'generated' AND n > 0 AND score > $promote THEN 'activated'
       END AS move
  RETURN count(c) AS scored,
         collect(CASE WHEN move IS NOT NULL THEN {id: c.id, from: state, to: move, agent_id: c.agent_id} END) AS moves,
         collect(CASE WHEN score > $promote AND (move IS NULL OR move = 'activated') THEN c.id END) AS promoted
}
RETURN last, scored, moves, promoted
