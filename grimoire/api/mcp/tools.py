"""A catalog entry made an MCP tool. A route tool's parameters are its route's (routes_index.py): path
parameters (an `agent_id` left out means the key's own agent), query parameters and the body's fields, with
their types, constraints and descriptions; its result is the route's response model, a page of its items, a
text, or a record. The call is the route's request with the caller's key (calls.py); a 4xx or 5xx is a tool
error carrying the route's own message, never a crash of the session."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from annotated_types import Le
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import Field
from pydantic_core import PydanticUndefined, to_jsonable_python

from grimoire.api.mcp import causal
from grimoire.api.mcp.calls import RouteError
from grimoire.api.mcp.catalog import TOOLS, ToolSpec
from grimoire.api.mcp.keys import Caller
from grimoire.api.mcp.results import LIST_CAP, Page, Record, Text, page
from grimoire.api.mcp.routes_index import Param, RouteInfo, routes
from grimoire.client.base import fill_path, query_pairs

if TYPE_CHECKING:
    from grimoire.api.mcp.server import GrimoireMCP

log = logging.getLogger(__name__)

PROGRESS_EVERY_SECONDS = 0.5
PERSON_ONLY = ("403: {tool} takes a person's key (the agent's owner, scope 'person') or the admin's: an agent's own "
               "key never approves its own staged memory or rolls itself back")


# ---------------------------------------------------------------------------------------------- the call itself


async def caller_of(ctx: Context) -> tuple[GrimoireMCP, Caller]:
    server: GrimoireMCP = ctx.mcp_server  # type: ignore[assignment]
    causal.enter(ctx)  # this call's routes chain in the MCP session's bookmark
    return server, await server.caller()


def check_person(spec: ToolSpec, caller: Caller) -> None:
    if spec.person and not caller.is_person:
        raise ToolError(PERSON_ONLY.format(tool=spec.name))


def agent_of(caller: Caller, agent_id: str | None) -> str:
    if agent_id:
        return agent_id
    if caller.agent_id is None:
        raise ToolError("agent_id is required: this key (the admin's) has no agent of its own")
    return caller.agent_id


async def request(server: GrimoireMCP, caller: Caller, method: str, path: str,
                  query: list[tuple[str, str]] | None = None, body: Any = None,
                  error: type[Exception] = ToolError) -> Any:
    """The route's answer (JSON, or text for a text route); a failure is `error` (a ToolError, a resource's
    ResourceError) with the route's status and message."""
    reply = await server.routes.call(caller.key, method, path, query, body)
    if reply.status >= 300:  # a redirect is a path that names no route here (an empty id): not a success
        raise error(str(RouteError(reply)))
    if reply.content_type.startswith("application/json"):
        return reply.json()
    return reply.body.decode()


# ---------------------------------------------------------------------------------------------- route tools


def _limit_of(param: Param | None) -> int | None:
    if param is None:
        return None
    return next((int(m.le) for m in param.info.metadata if isinstance(m, Le)), None)


def _parameter(p: Param, cap: int | None = None) -> inspect.Parameter:
    """The tool's parameter for a route's; `cap` bounds a limit the body takes (a list tool's page)."""
    info = p.info
    metadata = list(info.metadata)
    if cap is not None:
        metadata = [m for m in metadata if not isinstance(m, Le)] + [Le(cap)]
    annotation: Any = Annotated[(p.annotation, *metadata, Field(description=info.description))]
    if info.default_factory is not None:
        default: Any = Field(default_factory=info.default_factory)
    elif info.is_required():
        default = inspect.Parameter.empty
    else:
        default = None if info.default is PydanticUndefined else info.default
        if cap is not None and isinstance(default, int):
            default = min(default, cap)
    return inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def _returns(info: RouteInfo) -> Any:
    if info.text:
        return Text
    if info.list_item is not None:
        return Page[info.list_item if info.list_item is not Any else dict[str, Any]]  # type: ignore[name-defined]
    if info.response is not None:
        return info.response
    return type(f"{''.join(w.title() for w in info.path.strip('/').replace('-', '_').split('/')[:1])}Record",
                (Record,), {"__doc__": info.summary or Record.__doc__})


AGENT = Annotated[str | None, Field(description="whose memory: an agent id; omitted, this key's own agent")]
OFFSET = Annotated[int, Field(ge=0, description="where the page starts (a previous page's next_offset)")]


def route_tool(spec: ToolSpec, info: RouteInfo) -> Tool:
    listed = info.list_item is not None
    # A list whose body already bounds it (k-hop's limit): one page, the route's bound.
    pages = listed and not {"offset", "limit"} & {b.name for b in info.body}
    limit_param, offset_param = info.query_param("limit"), info.query_param("offset")
    route_cap = _limit_of(limit_param)
    params: list[inspect.Parameter] = []
    for name in info.path_params:
        if name == "agent_id":
            params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=AGENT))
        else:
            whole = f"{{{name}:path}}" in info.path  # an entity id may hold slashes; no other id does
            params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[
                str, Field(min_length=1, pattern=None if whole else r"^[^/]+$")]))
    paged = {"offset", "limit"} if pages else set()
    params += [_parameter(q) for q in info.query if q.name not in paged]
    # A body field named like a path or query parameter (an exported graph's own agent_id) is body_<name>.
    taken = {*info.path_params, *(q.name for q in info.query)}
    body_params = [Param(f"body_{b.name}", b.wire, b.annotation, b.info) if b.name in taken else b for b in info.body]
    params += [_parameter(b, LIST_CAP if listed and b.name == "limit" else None) for b in body_params]
    if info.raw_body is not None:
        params.append(_parameter(info.raw_body))
    if pages:
        cap = min(LIST_CAP, route_cap or LIST_CAP)
        default_limit = min(cap, int(limit_param.info.default) if limit_param and isinstance(
            limit_param.info.default, int) else cap)
        params.append(inspect.Parameter("offset", inspect.Parameter.KEYWORD_ONLY, default=0, annotation=OFFSET))
        params.append(inspect.Parameter("limit", inspect.Parameter.KEYWORD_ONLY, default=default_limit,
                                        annotation=Annotated[int, Field(ge=1, le=cap, description=(
                                            f"how many items in this page (at most {cap})"))]))
    params.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context))
    returns = _returns(info)

    async def call(**kwargs: Any) -> Any:
        ctx: Context = kwargs.pop("ctx")
        server, caller = await caller_of(ctx)
        check_person(spec, caller)
        values = {n: (agent_of(caller, kwargs.get(n)) if n == "agent_id" else str(kwargs[n])) for n in info.path_params}
        path = fill_path(info.path, values)
        query = {q.wire: kwargs[q.name] for q in info.query if q.name not in paged}
        body: Any = None
        if info.body_model is not None:
            body = {b.wire: to_jsonable_python(kwargs[b.name]) for b in body_params}
        elif info.raw_body is not None:
            body = to_jsonable_python(kwargs["body"])
        offset, limit = (kwargs["offset"], kwargs["limit"]) if pages else (0, LIST_CAP * 10)
        if pages and offset_param is not None:  # the route pages itself: one more item says whether more follow
            query["offset"] = offset
            query["limit"] = min(limit + 1, route_cap) if route_cap else limit + 1
        elif pages and limit_param is not None:  # the route only limits: ask for the pages before and slice
            query["limit"] = min(offset + limit + 1, route_cap) if route_cap else offset + limit + 1
        answer = await _run(spec, ctx, server, caller, info.method, path, query_pairs(query), body)
        if info.text:
            return {"text": answer}
        if listed:
            items = list(answer or [])
            if offset_param is None:
                items = items[offset:]
            return page(items[:limit], offset, limit, len(items) > limit)
        return answer

    call.__name__ = spec.name
    call.__signature__ = inspect.Signature(params, return_annotation=returns)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in params} | {"return": returns}
    return Tool.from_function(call, name=spec.name, title=spec.name.replace("_", " "),
                              description=f"{spec.description} (REST: {info.key})",
                              annotations=spec.annotations())


async def _run(spec: ToolSpec, ctx: Context, server: GrimoireMCP, caller: Caller, method: str, path: str,
               query: list[tuple[str, str]], body: Any) -> Any:
    if not spec.progress:
        return await request(server, caller, method, path, query, body)
    return await with_progress(ctx, server, lambda: request(server, caller, method, path, query, body))


async def with_progress(ctx: Context, server: GrimoireMCP, work: Callable[[], Awaitable[Any]]) -> Any:
    """Runs `work`, reporting GDS's progress (gds.listProgress) every half second until it ends."""
    result: list[Any] = []
    failed: list[BaseException] = []
    await _report(ctx, 0.0, "started")
    async with anyio.create_task_group() as tg:
        async def run() -> None:
            try:
                result.append(await work())
            except Exception as exc:  # raised below, outside the task group (not as an exception group)
                failed.append(exc)
            tg.cancel_scope.cancel()

        tg.start_soon(run)
        reached = 0.0  # MCP's progress only rises: GDS's tasks each count from 0, so the furthest so far
        while True:
            await anyio.sleep(PROGRESS_EVERY_SECONDS)
            try:
                running = await server.gds_progress()
            except Exception:  # progress is a courtesy: a failed look must not fail (or cancel) the analysis
                log.debug("GDS progress not read", exc_info=True)
                continue
            for task, fraction in running:
                if min(fraction, 0.99) > reached:
                    reached = min(fraction, 0.99)
                    await _report(ctx, reached, task)
    if failed:
        raise failed[0]
    await _report(ctx, 1.0, "done")
    return result[0]


async def _report(ctx: Context, fraction: float, message: str) -> None:
    try:
        await ctx.report_progress(fraction, 1.0, message)
    except Exception:  # a client gone or without a progress token: the work goes on
        log.debug("progress not reported", exc_info=True)


@cache
def built() -> dict[str, Tool]:
    """Every tool, built once per process (the routes do not change while it runs)."""
    from grimoire.api.mcp.composites import COMPOSITES

    index = routes()
    out: dict[str, Tool] = {}
    for spec in TOOLS:
        out[spec.name] = route_tool(spec, index[spec.route]) if spec.route else COMPOSITES[spec.name](spec)
    return out
