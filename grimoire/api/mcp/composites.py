"""Tools that are one capability over several routes: editing a core block (append, insert, replace or delete a
line, rewrite), feedback on an entry (confirm, contradict, outcome), walking the causal graph either way."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from grimoire.api.mcp.catalog import ToolSpec
from grimoire.api.mcp.results import LIST_CAP, Page, page
from grimoire.api.mcp.tools import agent_of, caller_of, check_person, request
from grimoire.api.schemas.causal import CausalHit
from grimoire.api.schemas.entries import EntryOut
from grimoire.api.schemas.memory import CoreOut
from grimoire.client.base import fill_path, query_pairs
from grimoire.graph.knowledge import causal
from grimoire.graph.memory.blocks import Block
from grimoire.graph.model.enums import Outcome

A = "/agents/{agent_id}"


def _tool(spec: ToolSpec, fn: Callable[..., Any]) -> Tool:
    return Tool.from_function(fn, name=spec.name, title=spec.name.replace("_", " "),
                              description=f"{spec.description} (REST: {', '.join(spec.routes)})",
                              annotations=spec.annotations())


class CoreEdit(StrEnum):
    append = "append"              # text: lines added at the end
    insert = "insert"              # text: one line put at `line` (the lines from there move down)
    replace_line = "replace_line"  # text: the new text of the line at `line`, or of the line reading `old`
    delete_line = "delete_line"    # the line at `line`, or the line reading `old`
    rewrite = "rewrite"            # text: the block's whole new text


def edit_core_memory(spec: ToolSpec) -> Tool:
    async def edit_core_memory(
        ctx: Context,
        block: Annotated[Block, Field(description="identity, context, persona or critical")],
        operation: Annotated[CoreEdit, Field(description="append, insert, replace_line, delete_line or rewrite")],
        text: Annotated[str | None, Field(description="the lines to append, the line to insert, the line's new "
                                                      "text, or the block's whole new text")] = None,
        line: Annotated[int | None, Field(ge=1, description="the line's number (1-based): where to insert, which "
                                                            "line to replace or delete")] = None,
        old: Annotated[str | None, Field(description="or: the current text of the line to replace or delete")] = None,
        expected_version: Annotated[int | None, Field(ge=0, description=(
            "the block's version you read (get_core_memory); another version refuses the edit"))] = None,
        reason: Annotated[str | None, Field(max_length=500, description="why, for the audit trail")] = None,
        agent_id: Annotated[str | None, Field(description="whose core memory; omitted, this key's agent")] = None,
    ) -> CoreOut:
        server, caller = await caller_of(ctx)
        check_person(spec, caller)
        base = fill_path(A, {"agent_id": agent_of(caller, agent_id)}) + f"/core/{block.value}"
        common = {"reason": reason, "expected_version": expected_version}
        if operation in (CoreEdit.append, CoreEdit.insert, CoreEdit.replace_line, CoreEdit.rewrite) and text is None:
            raise ToolError(f"{operation.value} needs text")
        if operation in (CoreEdit.insert,) and line is None:
            raise ToolError("insert needs line: the position the new line takes")
        if operation in (CoreEdit.replace_line, CoreEdit.delete_line) and line is None and old is None:
            raise ToolError(f"{operation.value} needs line (its number) or old (its current text)")
        if operation is CoreEdit.append:
            answer = await request(server, caller, "POST", f"{base}/append", body={"text": text, **common})
        elif operation is CoreEdit.rewrite:
            answer = await request(server, caller, "PUT", base, body={"content": text, **common})
        elif operation is CoreEdit.insert:
            # The block as it is, the line put in, written back only if it is still at the version the caller
            # expects, else at the version read here (the route's compare-and-set refuses anything newer).
            core = await request(server, caller, "GET", base.rsplit("/", 1)[0])
            state = next(b for b in core["blocks"] if b["block"] == block.value)
            lines = state["content"].split("\n") if state["content"] else []
            assert line is not None and text is not None
            lines.insert(min(line - 1, len(lines)), text)
            answer = await request(server, caller, "PUT", base, body={
                "content": "\n".join(lines), "reason": reason,
                "expected_version": state["version"] if expected_version is None else expected_version})
        else:
            new = text if operation is CoreEdit.replace_line else ""
            answer = await request(server, caller, "POST", f"{base}/line",
                                   body={"new": new, "line": line, "old": old, **common})
        return CoreOut.model_validate(answer)

    return _tool(spec, edit_core_memory)


class Verdict(StrEnum):
    confirm = "confirm"          # the entry held: an upvote
    contradict = "contradict"    # it did not: a downvote
    outcome = "outcome"          # a decision used it: how that turned out


def give_feedback(spec: ToolSpec) -> Tool:
    async def give_feedback(
        ctx: Context,
        entry_id: Annotated[str, Field(description="the entry the feedback is on")],
        feedback: Annotated[Verdict, Field(description="confirm, contradict, or outcome")],
        outcome: Annotated[Outcome | None, Field(description="for outcome: positive, negative or neutral")] = None,
        used_in_decision: Annotated[bool, Field(description="for outcome: whether a decision relied on it")] = True,
        episode_id: Annotated[str | None, Field(description="for outcome: the episode that records it")] = None,
    ) -> EntryOut:
        server, caller = await caller_of(ctx)
        check_person(spec, caller)
        path = fill_path("/entries/{entry_id}", {"entry_id": entry_id})
        if feedback is Verdict.confirm:
            answer = await request(server, caller, "POST", f"{path}/upvote")
        elif feedback is Verdict.contradict:
            answer = await request(server, caller, "POST", f"{path}/downvote")
        else:
            if outcome is None:
                raise ToolError("outcome feedback needs outcome: positive, negative or neutral")
            answer = await request(server, caller, "POST", f"{path}/outcome", body={
                "used_in_decision": used_in_decision, "outcome": outcome.value, "episode_id": episode_id})
        return EntryOut.model_validate(answer)

    return _tool(spec, give_feedback)


class Direction(StrEnum):
    causes = "causes"
    consequences = "consequences"


class CausalPage(Page[CausalHit]):
    pass


def walk_causal(spec: ToolSpec) -> Tool:
    async def walk_causal(
        ctx: Context,
        entry_id: Annotated[str, Field(description="the entry to start from")],
        direction: Annotated[Direction, Field(description="causes (what led to it) or consequences (what it led "
                                                          "to)")] = Direction.consequences,
        depth: Annotated[int, Field(ge=1, le=causal.MAX_DEPTH, description="how many links to follow")] = 2,
        offset: Annotated[int, Field(ge=0, description="where the page starts")] = 0,
        limit: Annotated[int, Field(ge=1, le=LIST_CAP, description="how many in this page")] = 50,
    ) -> CausalPage:
        server, caller = await caller_of(ctx)
        path = fill_path("/causal/{entry_id}/", {"entry_id": entry_id}) + direction.value
        items = list(await request(server, caller, "GET", path, query_pairs({"depth": depth})))[offset:]
        return CausalPage.model_validate(page(items[:limit], offset, limit, len(items) > limit))

    return _tool(spec, walk_causal)


COMPOSITES: dict[str, Callable[[ToolSpec], Tool]] = {
    "edit_core_memory": edit_core_memory, "give_feedback": give_feedback, "walk_causal": walk_causal,
}
