// Opens an ExpeL distillation of one strategy: a CuratorCycle of kind 'expel' (its operations hang off it as a
// cycle's do), noted on the strategy's counter so that a run stopped midway is resumed, not opened again.
:param counter_id => 'golem-1|dca';
:param props => {id: 'golem-1:expel:dca:1', agent_id: 'golem-1', seq: 1, kind: 'expel', status: 'running'};
MATCH (s:StrategyCounter {id: $counter_id})
MERGE (c:CuratorCycle {id: $props.id})
  ON CREATE SET c += $props
SET s.open = c.id
RETURN c {.*} AS cycle
