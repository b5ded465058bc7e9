"""Resources an agent reads rather than calls: its PLAYBOOK.md, its MEMORY.md, each core block, any item by id,
and the schema (the words the tools take). Each is read as the caller, through the same routes as the tools."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.exceptions import ResourceError

from grimoire.api.mcp.calls import RouteError
from grimoire.api.mcp.tools import request
from grimoire.client.base import fill_path
from grimoire.graph.context.categories import TaskType
from grimoire.graph.memory.blocks import Block
from grimoire.graph.memory.routing import MemoryType, Store
from grimoire.graph.model.enums import (
    EntityKind,
    EntryCategory,
    EntryStatus,
    EpisodeType,
    MarketRegime,
    Outcome,
    Predicate,
    Scope,
)
from grimoire.graph.retrieval import mode_names

if TYPE_CHECKING:
    from grimoire.api.mcp.server import GrimoireMCP

# Where an item may live, tried in order: an id names one item of one of these.
ITEM_ROUTES = ("/entries/{id}", "/episodes/{id}", "/agents/{agent}/memories/{id}", "/crystals/{id}")


def schema() -> dict[str, Any]:
    """The vocabulary the tools take, from the project's own enums."""
    def values(enum: Any) -> list[str]:
        return [str(v.value) for v in enum]

    return {
        "entry_categories": values(EntryCategory), "entry_statuses": values(EntryStatus),
        "episode_types": values(EpisodeType), "entity_kinds": values(EntityKind), "predicates": values(Predicate),
        "retrieval_modes": mode_names(), "scopes": values(Scope), "outcomes": values(Outcome),
        "regimes": values(MarketRegime), "core_blocks": values(Block), "memory_stores": values(Store),
        "memory_types": values(MemoryType), "task_types": values(TaskType),
    }


def register(server: GrimoireMCP) -> None:
    async def get(path: str) -> Any:
        return await request(server, await server.caller(), "GET", path, error=ResourceError)

    async def own_agent() -> str:
        caller = await server.caller()
        if caller.agent_id is None:
            raise ResourceError("this key (the admin's) has no agent of its own: use the tools with agent_id")
        return caller.agent_id

    @server.resource("grimoire://playbook", name="PLAYBOOK.md", mime_type="text/markdown",
                     description="This agent's playbook: its promoted heuristics by strategy and its active warnings.")
    async def playbook() -> str:
        return str(await get("/playbook"))

    @server.resource("grimoire://memory", name="MEMORY.md", mime_type="text/markdown",
                     description="This agent's core memory rendered as MEMORY.md (identity, context, persona, "
                                 "critical facts).")
    async def memory_md() -> str:
        return str(await get(f"/agents/{await own_agent()}/core/memory.md"))

    @server.resource("grimoire://core/{block}", name="core block", mime_type="application/json",
                     description="One core memory block (identity, context, persona or critical): its text, "
                                 "version and pinned facts.")
    async def core_block(block: str) -> str:
        if block not in {b.value for b in Block}:
            raise ResourceError(f"no core block {block!r}: one of {', '.join(b.value for b in Block)}")
        core = await get(f"/agents/{await own_agent()}/core")
        return json.dumps(next(b for b in core["blocks"] if b["block"] == block))

    @server.resource("grimoire://items/{item_id}", name="item", mime_type="application/json",
                     description="Any item this key may see, by id: an entry, an episode, a memory or a crystal.")
    async def item(item_id: str) -> str:
        caller = await server.caller()
        for template in ITEM_ROUTES:
            if "{agent}" in template and caller.agent_id is None:
                continue
            path = fill_path(template.replace("{id}", "{item_id}").replace("{agent}", "{agent_id}"),
                        {"item_id": item_id, "agent_id": caller.agent_id or ""})
            reply = await server.routes.call(caller.key, "GET", path)
            if reply.status == 200:
                return reply.body.decode()
            if reply.status not in (404, 403):
                raise ResourceError(str(RouteError(reply)))
        raise ResourceError(f"no item {item_id!r} this key may see")

    @server.resource("grimoire://schema", name="schema", mime_type="application/json",
                     description="The words the tools take: entry categories, episode types, entity kinds, "
                                 "predicates, retrieval modes, scopes, outcomes, regimes, core blocks, stores.")
    def schema_resource() -> str:
        return json.dumps(schema())
