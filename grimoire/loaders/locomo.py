"""LoCoMo conversations as memories: each dialogue turn an episode (speaker: text), valid from its
session's date, mentioning its speaker as a Person, following the turn before it in its session.
Only the dialogue and the dates are loaded, not the dataset's generated observations, summaries or
image captions. One agent (memory) per conversation. Any file in the LoCoMo format works."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from grimoire.graph import agents
from grimoire.graph.agents import AgentIn
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.episodes import ingest
from grimoire.graph.model.enums import EpisodeType
from grimoire.graph.model.episode import EpisodeIn

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


@dataclass
class Question:
    question: str
    evidence: list[str]   # episode ids
    category: int
    answer: str = ""


@dataclass
class Conversation:
    sample_id: str
    episodes: list[EpisodeIn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def agent_id(self) -> str:
        return agent_for(self.sample_id)


def agent_for(sample_id: str) -> str:
    return f"locomo-{sample_id}"


def episode_id(sample_id: str, dia_id: str) -> str:
    return f"{sample_id}:{dia_id}"


def _session_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def read(path: Path) -> list[Conversation]:
    out = []
    for raw in json.loads(Path(path).read_text()):
        conv = Conversation(raw["sample_id"])
        c = raw["conversation"]
        sessions = sorted((int(k.split("_")[1]), v) for k, v in c.items()
                          if k.startswith("session_") and not k.endswith("date_time") and isinstance(v, list))
        for number, turns in sessions:
            when = _session_time(c[f"session_{number}_date_time"])
            previous = None
            for turn in turns:
                eid = episode_id(conv.sample_id, turn["dia_id"])
                conv.episodes.append(EpisodeIn(
                    id=eid, agent_id=conv.agent_id, type=EpisodeType.conversation,
                    text=f"{turn['speaker']}: {turn['text']}", valid_from=when,
                    mentions=[{"kind": "Person", "name": turn["speaker"]}], follows=previous))
                previous = eid
        known = {e.id for e in conv.episodes}
        for q in raw.get("qa", []):
            evidence = [episode_id(conv.sample_id, e.strip()) for ev in q.get("evidence", []) for e in ev.split(";")]
            evidence = [e for e in evidence if e in known]
            if evidence:
                conv.questions.append(Question(q["question"], evidence, int(q["category"]), str(q.get("answer", ""))))
        out.append(conv)
    return out


def load(db: Database, embedder: Embedder, path: Path, *, actor: str = "loader-locomo") -> list[Conversation]:
    """Idempotent: agents are registered once, episodes merged by id."""
    conversations = read(path)
    for conv in conversations:
        if agents.get(db, conv.agent_id) is None:
            agents.register(db, AgentIn(id=conv.agent_id, name=f"LoCoMo {conv.sample_id}", clade="locomo"),
                            actor=actor)
        ingest(db, embedder, conv.episodes, actor=actor, clade="locomo")
        print(f"[locomo] {conv.sample_id}: {len(conv.episodes)} turns, {len(conv.questions)} questions", flush=True)
    return conversations
