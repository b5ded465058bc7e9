// Memories of one agent among the given ids that are not archived (the hybrid retrieval's results).
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
UNWIND range(0, size($ids) - 1) AS rank
MATCH (m:Memory:Episode {id: $ids[rank]}) WHERE m.agent_id = $agent_id
RETURN m {.*, embedding: null} AS memory, rank
