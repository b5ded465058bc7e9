"""Agent memory over REST: core memory's four blocks read together, edited one at a time under the cap
(a 409 says by how many tokens an edit would pass it), critical facts pinned, earlier versions, and
MEMORY.md. An agent reads and edits its own core memory; the admin any agent's; its sub-agents read it (13.1's
shared read) and propose what they would write (api/routes/proposals.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, HTTPException, Query
from fastapi.responses import PlainTextResponse

from grimoire.api.auth import Reader, Writer, WriterOrPerson
from grimoire.api.deps import AgentMemoryDep, CoreMemoryDep, ServicesDep
from grimoire.api.routes.agents import require_reader_of, require_self_or_admin
from grimoire.api.schemas.memory import (
    AppendIn,
    CoreOut,
    DecisionIn,
    ErasureReceipt,
    ForgetIn,
    ForgetPreviewIn,
    IdsIn,
    LineIn,
    MemoryVersionOut,
    MessageIn,
    MessageOut,
    PinIn,
    ReflectIn,
    ReinforceIn,
    ReplaceIn,
)
from grimoire.graph.agents import Principal
from grimoire.graph.errors import NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import entity_pages, reflection_format, stores
from grimoire.graph.memory.approval import Verdict
from grimoire.graph.memory.blocks import Append, Block, EditLine, Replace, Unchanged
from grimoire.graph.memory.entity_pages import EntityPage
from grimoire.graph.memory.forgetting import Archived, CoreLine, ForgetPreview, Restored
from grimoire.graph.memory.messages import Reinforced
from grimoire.graph.memory.recall import MIN_SEARCH_SCORE, RESULTS, RecallAnswer
from grimoire.graph.memory.reflection import Trigger
from grimoire.graph.memory.reflection_format import Reflection
from grimoire.graph.memory.routing import Store
from grimoire.graph.memory.stores import Memory
from grimoire.graph.memory.triggers import QueryType
from grimoire.graph.model.common import to_ms
from grimoire.graph.model.crystal import lifecycle
from grimoire.graph.model.enums import KeyScope

router = APIRouter(tags=["memory"])


def _own(who: Principal, agent_id: str) -> str:
    require_self_or_admin(who, agent_id)
    return agent_id


@router.get("/agents/{agent_id}/core", response_model=CoreOut,
            summary="Core memory: the four blocks together, each with its tokens, the total and the cap")
def read_core(agent_id: str, core: CoreMemoryDep, who: Reader) -> CoreOut:
    return core.read(require_reader_of(core.db, who, agent_id))


@router.get("/agents/{agent_id}/core/memory.md", response_class=PlainTextResponse,
            summary="MEMORY.md: core memory in the spec's layout (text/markdown)")
def memory_md(agent_id: str, core: CoreMemoryDep, who: Reader) -> PlainTextResponse:
    return PlainTextResponse(core.markdown(require_reader_of(core.db, who, agent_id)),
                             media_type="text/markdown; charset=utf-8")


@router.get("/agents/{agent_id}/core/{block}/versions", response_model=list[MemoryVersionOut],
            summary="A core block's earlier texts, newest first, each closed when the next edit replaced it")
def block_versions(agent_id: str, block: Block, core: CoreMemoryDep, who: Reader) -> list[MemoryVersionOut]:
    return core.versions(require_reader_of(core.db, who, agent_id), block)


@router.put("/agents/{agent_id}/core/{block}", response_model=CoreOut,
            summary="Replace a core block's text (409 past the cap, saying by how many tokens)")
def replace_block(agent_id: str, block: Block, body: ReplaceIn, core: CoreMemoryDep,
                  who: WriterOrPerson) -> CoreOut:
    return core.edit(_own(who, agent_id), block, Replace(body.content), actor=who.key_id, reason=body.reason,
                     expected_version=body.expected_version)


@router.post("/agents/{agent_id}/core/{block}/append", response_model=CoreOut,
             summary="Append lines to a core block (409 past the cap)")
def append_block(agent_id: str, block: Block, body: AppendIn, core: CoreMemoryDep,
                 who: WriterOrPerson) -> CoreOut:
    return core.edit(_own(who, agent_id), block, Append(body.text), actor=who.key_id, reason=body.reason,
                     expected_version=body.expected_version)


@router.post("/agents/{agent_id}/core/{block}/line", response_model=CoreOut,
             summary="Edit one line of a core block, by its number or its current text (empty: delete it)")
def edit_line(agent_id: str, block: Block, body: LineIn, core: CoreMemoryDep, who: WriterOrPerson) -> CoreOut:
    return core.edit(_own(who, agent_id), block, EditLine(body.new, body.line, body.old), actor=who.key_id,
                     reason=body.reason, expected_version=body.expected_version)


@router.post("/agents/{agent_id}/core/critical/pin", response_model=CoreOut,
             summary="Pin a critical fact (added when missing): it never decays and every edit keeps it")
def pin_fact(agent_id: str, body: PinIn, core: CoreMemoryDep, who: WriterOrPerson) -> CoreOut:
    return core.edit(_own(who, agent_id), Block.critical, Unchanged(), actor=who.key_id,
                     reason="pinned a critical fact", pin=[body.fact])


@router.post("/agents/{agent_id}/core/critical/unpin", response_model=CoreOut,
             summary="Unpin a critical fact (it stays in the block; edits may now change it)")
def unpin_fact(agent_id: str, body: PinIn, core: CoreMemoryDep, who: WriterOrPerson) -> CoreOut:
    return core.edit(_own(who, agent_id), Block.critical, Unchanged(), actor=who.key_id,
                     reason="unpinned a critical fact", unpin=[body.fact.strip()])


# ---------------------------------------------------------------------------------------- messages and stores

@router.post("/agents/{agent_id}/messages", response_model=MessageOut, response_model_exclude_none=True,
             summary="Pass a user's message: remember, recall, forget (a preview) or reflect, by its phrase")
def message(agent_id: str, body: MessageIn, memory: AgentMemoryDep, who: Writer,
            background: BackgroundTasks) -> MessageOut:
    # a recall's reinforcement (bookkeeping) is written after the answer is sent
    return memory.message(_own(who, agent_id), body.text, actor=who.key_id, at=to_ms(body.at),
                          session_id=body.session_id, defer=background.add_task)


@router.get("/agents/{agent_id}/memories", response_model=list[Memory], response_model_exclude_unset=True,
            summary="The agent's memories, newest first: of a store, of a day "
                                                    "(the episodic log); only the archived ones with archived=true, "
                                                    "both with include_archived=true; each with its relevance now "
                                                    "(section 9)")
def list_memories(agent_id: str, memory: AgentMemoryDep, who: Reader, store: Store | None = None,
                  day: Annotated[str | None, Query(pattern=r"^\d{4}-\d{2}-\d{2}$")] = None,
                  archived: Annotated[bool, Query(description="only the archived (forgotten) memories")] = False,
                  include_archived: Annotated[bool, Query(description="the archived memories too")] = False,
                  offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
                  limit: Annotated[int, Query(ge=1, le=500)] = 50) -> list[Memory]:
    owner = require_reader_of(memory.db, who, agent_id)
    return stores.list_memories(memory.db, owner, store=store, day=day, archived=archived,
                                include_archived=include_archived, offset=offset, limit=limit)


@router.get("/agents/{agent_id}/memories/{memory_id}", response_model=Memory, response_model_exclude_unset=True,
            summary="One memory, with its relevance now; a forgotten (archived) one only with include_archived=true")
def get_memory(agent_id: str, memory_id: str, memory: AgentMemoryDep, who: Reader,
               include_archived: Annotated[bool, Query(description="answer for an archived memory too")] = False,
               ) -> Memory:
    found = stores.get(memory.db, require_reader_of(memory.db, who, agent_id), [memory_id])
    if not found or (lifecycle.archived(found[0].model_dump(exclude_unset=True)) and not include_archived):
        raise NotFound(f"no memory {memory_id!r}")
    return found[0]


@router.get("/agents/{agent_id}/entities/{entity_id}/page", response_model=EntityPage,
            summary="An entity's page (section 6.2) generated from the agent's own live memories that name it: "
                    "summary, facts, timeline, open questions and relations, and the Markdown entity file; the "
                    "entity by its spec id (kind--name) or the graph's id")
def entity_page(agent_id: str, entity_id: str, memory: AgentMemoryDep, who: Reader) -> EntityPage:
    return entity_pages.read(memory.db, require_reader_of(memory.db, who, agent_id), entity_id, now_ms())


@router.get("/agents/{agent_id}/entities/{entity_id}/page.md", response_class=PlainTextResponse,
            summary="An entity's page as its Markdown entity file (text/markdown), as the workspace export writes it")
def entity_page_md(agent_id: str, entity_id: str, memory: AgentMemoryDep, who: Reader) -> PlainTextResponse:
    page = entity_pages.read(memory.db, require_reader_of(memory.db, who, agent_id), entity_id, now_ms())
    return PlainTextResponse(page.markdown, media_type="text/markdown; charset=utf-8")


@router.get("/agents/{agent_id}/recall", response_model=RecallAnswer, response_model_exclude_unset=True,
            summary="Recall by query type (section 11.1), ranked by match x relevance; "
                                                 "archived never, dormant only when explicit")
def recall(agent_id: str, memory: AgentMemoryDep, who: Reader,
           q: Annotated[str, Query(min_length=1, max_length=2_000)],
           type: QueryType = QueryType.general, explicit: bool = False,
           k: Annotated[int, Query(ge=1, le=100)] = RESULTS,
           min_score: Annotated[float, Query(ge=0.0, le=1.0, description=(
               "the least search score (match, before relevance) a result needs"))] = MIN_SEARCH_SCORE,
           ) -> RecallAnswer:
    owner = require_reader_of(memory.db, who, agent_id)
    return memory.recall.recall(owner, q, type, explicit=explicit, k=k, min_match=min_score, now=now_ms())


@router.post("/agents/{agent_id}/memories/reinforce", response_model=list[Reinforced],
             summary="Reinforce memories (section 9.4): one more access, the last access now")
def reinforce(agent_id: str, body: ReinforceIn, memory: AgentMemoryDep, who: Writer) -> list[Reinforced]:
    return memory.reinforce(_own(who, agent_id), body.ids, body.reason, actor=who.key_id)


@router.post("/agents/{agent_id}/forget/preview", response_model=ForgetPreview, response_model_exclude_unset=True,
             summary="What forgetting a target would take, across every store and core memory; changes nothing")
def forget_preview(agent_id: str, body: ForgetPreviewIn, memory: AgentMemoryDep, who: Reader) -> ForgetPreview:
    return memory.forgetting.preview(_own(who, agent_id), body.target, permanent=body.permanent, now=now_ms())


@router.post("/agents/{agent_id}/forget", response_model=ErasureReceipt | Archived,
             summary="Forget, confirmed: archive (hidden from every search, kept) or, when permanent, erase: delete "
                     "for good with what hangs off it alone, every copy of its text redacted (the trail keeps who, "
                     "when, what and a hash); a permanent delete answers with its erasure receipt")
def forget(agent_id: str, body: ForgetIn, memory: AgentMemoryDep, services: ServicesDep,
           who: Writer) -> ErasureReceipt | Archived:
    lines = [CoreLine(c.block, c.line) for c in body.core_lines] if body.core_lines is not None else None
    out = memory.forget(_own(who, agent_id), actor=who.key_id, target=body.target, ids=body.ids,
                        core_lines=lines, permanent=body.permanent)
    if isinstance(out, Archived):
        return out
    # the workspaces kept in this process may quote what was erased
    workspaces = services.context.forget_items(agent_id, {*out.deleted, *out.entities})
    return out.model_copy(update={"workspaces": workspaces})


@router.post("/agents/{agent_id}/memories/restore", response_model=Restored,
             summary="Bring archived memories back into search")
def restore(agent_id: str, body: IdsIn, memory: AgentMemoryDep, who: Writer) -> Restored:
    return memory.forgetting.restore(_own(who, agent_id), body.ids, actor=who.key_id)


# ---------------------------------------------------------------------------------------- reflection

def _person(who: Principal, agent_id: str) -> str:
    """A reflection is decided by the person who runs the agent (a key of scope `person`) or an admin."""
    if not (who.is_admin or (KeyScope.person in who.scopes and who.agent_id == agent_id)):
        raise HTTPException(403, "only the person who runs this agent (a key with scope 'person') or an admin may "
                                 "decide its reflections; the agent's own key may not")
    return agent_id


@router.post("/agents/{agent_id}/reflections", status_code=201, response_model=Reflection,
             response_model_exclude_unset=True,
             summary="Reflect now (section 10): a pending reflection, applied only when a person approves it")
def reflect(agent_id: str, body: ReflectIn, memory: AgentMemoryDep, who: Writer) -> Reflection:
    return memory.reflections.reflect(_own(who, agent_id), trigger=Trigger.manual, actor=who.key_id,
                                      about=body.about)


@router.get("/agents/{agent_id}/reflections", response_model=list[Reflection], response_model_exclude_unset=True,
            summary="The reflection log: every reflection, newest first")
def reflections(agent_id: str, memory: AgentMemoryDep, who: Reader) -> list[Reflection]:
    return memory.reflections.all(_own(who, agent_id))


@router.get("/agents/{agent_id}/reflections/pending.md", response_class=PlainTextResponse,
            summary="pending-reflection.md: the reflection waiting for approval, in section 10.5's format")
def pending_md(agent_id: str, memory: AgentMemoryDep, who: Reader) -> PlainTextResponse:
    pending = memory.reflections.pending(_own(who, agent_id))
    if pending is None:
        raise NotFound("no reflection is pending")
    return PlainTextResponse(pending.markdown, media_type="text/markdown; charset=utf-8")


@router.get("/agents/{agent_id}/reflections/log.md", response_class=PlainTextResponse,
            summary="reflection-log.md: what each reflection proposed, and what was decided and applied")
def log_md(agent_id: str, memory: AgentMemoryDep, who: Reader) -> PlainTextResponse:
    return PlainTextResponse(reflection_format.log_md(memory.reflections.all(_own(who, agent_id))),
                             media_type="text/markdown; charset=utf-8")


@router.get("/agents/{agent_id}/reflections/evolution.md", response_class=PlainTextResponse,
            summary="evolution.md: the philosophical evolution of the approved reflections")
def evolution_md(agent_id: str, memory: AgentMemoryDep, who: Reader) -> PlainTextResponse:
    return PlainTextResponse(reflection_format.evolution_md(memory.reflections.all(_own(who, agent_id))),
                             media_type="text/markdown; charset=utf-8")


@router.get("/agents/{agent_id}/reflections/{reflection_id}", response_model=Reflection,
            response_model_exclude_unset=True, summary="One reflection, with its proposals")
def reflection(agent_id: str, reflection_id: str, memory: AgentMemoryDep, who: Reader) -> Reflection:
    return memory.reflections.get(_own(who, agent_id), reflection_id)


@router.post("/agents/{agent_id}/reflections/{reflection_id}/decision", response_model=Reflection,
             response_model_exclude_unset=True,
             summary="Decide a pending reflection (a person's key or the admin's): approve, approve with changes, "
                     "approve part, reject")
def decide(agent_id: str, reflection_id: str, body: DecisionIn, memory: AgentMemoryDep,
           who: Reader) -> Reflection:
    verdict = Verdict(body.decision, body.items, body.exclude, body.changes, body.note)
    return memory.approvals.decide(_person(who, agent_id), reflection_id, verdict, actor=who.key_id)
