// Closes an ExpeL distillation: the cycle complete, and the strategy's count restarts from the episodes recorded
// since it opened (those it counted are taken off; those ingested meanwhile still count toward the next).
:param counter_id => 'golem-1|dca';
:param id => 'golem-1:expel:dca:1';
:param props => {status: 'complete'};
MATCH (s:StrategyCounter {id: $counter_id}), (c:CuratorCycle {id: $id})
WHERE s.open = c.id
SET c += $props,
    s.episodes = CASE WHEN s.episodes > c.counted THEN s.episodes - c.counted ELSE 0 END,
    s.through = c.through, s.distillations = c.seq, s.distilled_at = c.now
REMOVE s.open
RETURN c {.*} AS cycle, s {.*} AS counter
