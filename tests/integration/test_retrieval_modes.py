"""Retrieval modes are strategies looked up by name (graph/retrieval/modes/): every mode a request
may name has one, an unknown name is refused, and a mode registered later is served through the
same pipeline (a new mode is a file and a registry line)."""

from __future__ import annotations

from typing import Any

import pytest

from grimoire.graph.errors import Invalid
from grimoire.graph.retrieval import modes
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.context import Context
from grimoire.graph.retrieval.modes import Needs
from grimoire.graph.retrieval.pipeline import RetrievalRequest
from grimoire.graph.retrieval.result import RetrievalResult
from grimoire.graph.visibility import Visibility

BUILT_IN = ["hybrid", "fusion", "vector", "bm25", "four_factor", "generative_agents", "replay"]


def test_every_mode_a_request_may_name_has_a_strategy() -> None:
    schema = RetrievalRequest.model_json_schema()["properties"]["mode"]
    assert schema["enum"] == modes.names() == BUILT_IN and schema["default"] == modes.DEFAULT == "hybrid"
    for name in schema["enum"]:
        strategy = modes.get(name)
        assert strategy.name == name and callable(strategy.candidates)
        assert RetrievalRequest(mode=name, text="x").mode == name
    assert {n: modes.get(n).needs for n in BUILT_IN} == {
        "hybrid": Needs.query, "fusion": Needs.query, "vector": Needs.query, "bm25": Needs.text,
        "four_factor": Needs.query, "generative_agents": Needs.query, "replay": Needs.nothing}


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(modes.UnknownMode, match="unknown mode 'psychic'") as e:
        modes.get("psychic")
    assert isinstance(e.value, Invalid)
    with pytest.raises(ValueError, match="unknown mode"):
        RetrievalRequest(mode="psychic", text="x")


def test_what_each_mode_needs_is_checked() -> None:
    with pytest.raises(ValueError, match="give text or vector"):
        RetrievalRequest(mode="vector")
    with pytest.raises(ValueError, match="bm25 needs text"):
        RetrievalRequest(mode="bm25", vector=[0.1, 0.2])
    assert RetrievalRequest(mode="replay").text is None


class Echo:
    """A test-only mode: the ids it is given, scored down from 1, one cut on the way."""

    name = "echo"
    needs = Needs.nothing

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids
        self.seen: list[Context] = []

    def candidates(self, ctx: Context) -> list[Candidate]:
        self.seen.append(ctx)
        found = ctx.items(self.ids)
        for i, c in enumerate(found):
            c.score, c.factors = 1.0 - i / 10, {"echo": float(i)}
        first, rest = found[0], found[1:]
        first.cut = "echo: the first is cut"
        ctx.cut.append(first)
        return rest


@pytest.fixture
def echo(monkeypatch) -> Echo:
    mode = Echo(["echo-1", "echo-2", "echo-3"])
    monkeypatch.setitem(modes.REGISTRY, mode.name, mode)
    return mode


def test_a_registered_mode_is_served_by_the_pipeline_and_the_api(api, echo) -> None:
    h = api.headers("echo-agent", "clade-echo")
    episodes = [{"id": f"echo-{i}", "type": "observation", "text": f"echo number {i}"} for i in (1, 2, 3)]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": episodes}).status_code == 201
    r = api.client.post("/retrieve", headers=h, json={"mode": "echo", "k": 1, "no_budget": True, "explain": True})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert body["mode"] == "echo" and len(echo.seen) == 1 and echo.seen[0].k == 1
    assert [(x["id"], x["rank"], x["score"]) for x in body["results"]] == [("echo-2", 1, 0.9)]
    assert body["results"][0]["explain"]["factors"] == {"echo": 1.0}
    assert [(c["id"], c["explain"]["cut"]) for c in body["cut"]] == [("echo-1", "echo: the first is cut")]
    assert body["beyond_k"] == 1
    # The pipeline's own answer is the typed result the route serialises.
    retriever = api.client.app.state.services.retriever
    result = retriever.retrieve(RetrievalRequest(mode="echo", k=2, no_budget=True),
                                Visibility("echo-agent", "clade-echo"), "echo-agent")
    assert isinstance(result, RetrievalResult) and result.mode == "echo"
    assert [(x.id, x.rank) for x in result.results] == [("echo-2", 1), ("echo-3", 2)]
    assert result.cut is None and result.beyond_k is None  # set only with the explanation
