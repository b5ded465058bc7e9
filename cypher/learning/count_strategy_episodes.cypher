// ExpeL's trigger (grimoire.md:1388): the episodes an ingest transaction created, counted per agent and strategy
// since that strategy's last distillation. In the ingest's own transaction, so the count is the graph's (every
// replica sees it) and an episode re-sent (not created) counts nothing.
:param counts => [{agent_id: 'golem-1', strategy: 'dca', n: 3}];
:param now => 1700000000000;
UNWIND $counts AS c
MERGE (s:StrategyCounter {id: c.agent_id + '|' + c.strategy})
  ON CREATE SET s.agent_id = c.agent_id, s.strategy = c.strategy, s.episodes = 0, s.distillations = 0,
                s.through = -1, s.recorded_at = $now
SET s.episodes = s.episodes + c.n, s.counted_at = $now
RETURN s.agent_id AS agent_id, s.strategy AS strategy, s.episodes AS episodes
