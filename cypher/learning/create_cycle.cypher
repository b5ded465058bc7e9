// Opens a Curator cycle (idempotent on its id: agent and sequence number).
:param props => {id: 'golem-1:cycle:1', agent_id: 'golem-1', seq: 1, status: 'running'};
MERGE (c:CuratorCycle {id: $props.id})
  ON CREATE SET c += $props
RETURN c {.*} AS cycle
