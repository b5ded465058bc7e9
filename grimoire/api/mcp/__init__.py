"""Grimoire over the Model Context Protocol (the official `mcp` SDK's MCPServer).

One tool per REST capability, each a thin typed front on the service's own route: the tool's call *is* a
request to the route, made in-process with the caller's key (calls.py). So identity, visibility, validation,
audit and error messages are the REST API's by construction, not a second copy of its rules; only the
channel differs, and every audit record notes it.

- catalog.py: the tools (name, route, description, annotations, profile) and the routes left out, with why.
- routes_index.py: what a route takes and returns, read from the FastAPI routes themselves.
- tools.py: a catalog entry made an MCP tool (typed parameters, pydantic result, pages, progress, errors).
- keys.py: who calls — the bearer key verified like REST's (HTTP) or the key from the environment (stdio).
- resources.py, prompts.py: PLAYBOOK.md, MEMORY.md, core blocks, items, the schema; session prompts.
- server.py: the server, mounted at /mcp (default profile) and /mcp/full in the app; stdio.py: `grimoire mcp`.
"""
