// The critical core blocks (identity, critical facts) of one agent, or of every agent ($agent_id null), with the
// checksum the service wrote: graph/audit/alerts.py verifies them at start-up and at session start.
:param agent_id => null;
:param blocks => ['identity', 'critical'];
MATCH (b:CoreBlock)
WHERE ($agent_id IS NULL OR b.agent_id = $agent_id) AND b.block IN $blocks
RETURN b.id AS id, b.agent_id AS agent_id, b.content AS content, b.pinned AS pinned, b.checksum AS checksum
ORDER BY b.id
