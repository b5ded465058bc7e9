"""A session's two ends for an agent's memory (moltbot-memory.md). At the start: the critical items verified and the
alerts waiting (12.5, graph/audit/alerts.py), and what waits for a batch review, the recommended default of 13.4
("main agent processes pending memories at the start of each session"): the sub-agents' open proposals (none in
manual mode: the person reviews them) and the reflection waiting for approval. At the end (10.1 "Session end"): a
reflection over what the session added, and the open proposals again (13.4: "at session start or end")."""

from __future__ import annotations

from pydantic import BaseModel, Field

from grimoire.graph.audit import alerts
from grimoire.graph.audit.alerts import AlertsAtStart
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import proposals as p
from grimoire.graph.memory.messages import AgentMemory
from grimoire.graph.memory.reflection_format import Reflection

PENDING_AT_START = 500  # open proposals listed at a session's start (as pending.md lists them)


class SessionStart(AlertsAtStart):
    """A session started: the critical items verified, the alerts waiting for the user (12.5), and what waits for
    the batch review (13.3): the open proposals to the agent's memory and the reflection waiting for approval."""

    review_mode: p.ReviewMode = Field(description="how proposals are reviewed (13.4): manual lists none here")
    pending_proposals: list[p.Proposal] = Field(default_factory=list,
                                                description="sub-agents' proposals not yet decided, by number")
    pending_reflection: Reflection | None = Field(default=None, description="the reflection waiting for approval")


class SessionEnded(BaseModel):
    agent_id: str
    ended_at: int
    reflection: Reflection | None = Field(
        default=None, description="the reflection the session's end proposed (trigger session_end), pending "
                                  "approval; none when nothing was remembered since the last one or one waits")
    review_mode: p.ReviewMode
    pending_proposals: list[p.Proposal] = Field(default_factory=list, description="sub-agents' proposals not yet "
                                                "decided, for the batch review at the session's end (13.4)")


# Answered with what is set (as the reflection and proposal routes answer): a stored reflection's nulls are its own,
# and what is not there is left out rather than null.
def _waiting(memory: AgentMemory, agent_id: str) -> tuple[p.ReviewMode, list[p.Proposal]]:
    """The open proposals the session reviews: all of them but in manual mode (the person's, not the session's)."""
    mode = memory.proposals.mode(agent_id)
    if mode is p.ReviewMode.manual:
        return mode, []
    return mode, memory.proposals.list(agent_id, status=list(p.OPEN), limit=PENDING_AT_START)


def start(memory: AgentMemory, agent_id: str) -> SessionStart:
    began = alerts.start_session(memory.db, agent_id)
    mode, waiting = _waiting(memory, agent_id)
    reflection = memory.reflections.pending(agent_id)
    return SessionStart(**dict(began), review_mode=mode, pending_proposals=waiting,
                        **({"pending_reflection": reflection} if reflection is not None else {}))


def end(memory: AgentMemory, agent_id: str, *, actor: str) -> SessionEnded:
    reflection = memory.reflections.at_session_end(agent_id, actor=actor)
    mode, waiting = _waiting(memory, agent_id)
    return SessionEnded(agent_id=agent_id, ended_at=now_ms(), review_mode=mode, pending_proposals=waiting,
                        **({"reflection": reflection} if reflection is not None else {}))
