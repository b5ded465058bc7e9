// ExpeL's counts (graph/learning/expel.py) recomputed from the live episodes after a rollback deleted or restored
// some (graph/audit/rollback.py): each strategy's episodes recorded since its last distillation's watermark, which
// is what the ingests' increments (learning/count_strategy_episodes) add up to while none of them is undone.
:param pairs => [{agent_id: 'golem-1', strategy: 'dca'}];
UNWIND $pairs AS p
MATCH (s:StrategyCounter {id: p.agent_id + '|' + p.strategy})
SET s.episodes = COUNT { MATCH (ep:Episode {agent_id: s.agent_id})
                         WHERE ep.strategy = s.strategy AND ep.recorded_at > s.through }
RETURN s.id AS id, s.episodes AS episodes
