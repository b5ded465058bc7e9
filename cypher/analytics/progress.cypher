// The GDS tasks running now and how far along each is ('45.2%', or 'n/a' before it knows): the MCP tools
// report it to their client while an analysis runs (api/mcp/tools.py with_progress).
CALL gds.listProgress() YIELD taskName, progress
RETURN taskName AS task, progress
