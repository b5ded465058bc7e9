// An agent's episodes as the benchmark seeded them: unconsolidated and unchecked (bench/curator.py).
:param agent_id => 'bench-agent';
MATCH (ep:Episode {agent_id: $agent_id})
WHERE ep.consolidated <> false OR ep.consolidated_in IS NOT NULL OR ep.causal_checked_in IS NOT NULL
CALL (ep) { SET ep.consolidated = false, ep.consolidated_in = null, ep.causal_checked_in = null }
  IN TRANSACTIONS OF 1000 ROWS
