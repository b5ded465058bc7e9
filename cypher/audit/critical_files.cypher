// The critical workspace files (SOUL.md, IDENTITY.md, USER.md, TOOLS.md: graph/memory/critical_files.py) of one
// agent, or of every agent ($agent_id null), with the checksum the service wrote: graph/audit/alerts.py verifies
// them at start-up and at session start, as it does the critical blocks.
:param agent_id => null;
MATCH (f:WorkspaceFile)
WHERE ($agent_id IS NULL OR f.agent_id = $agent_id)
RETURN f.id AS id, f.agent_id AS agent_id, f.content AS content, f.checksum AS checksum
ORDER BY f.id
