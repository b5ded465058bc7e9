"""A task's retrieval strategy (context-governor.md S3.1 ContextStrategyMap; graph/context/strategy.py)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from grimoire.graph.context.categories import ContextCategory, TaskType
from grimoire.graph.context.items import Item
from grimoire.graph.context.policy import Policy
from grimoire.graph.context.strategy import RetrievalStrategy, apply

C = ContextCategory


def item(ident: str, c: ContextCategory, score: float, source: str = "grimoire") -> Item:
    return Item(id=ident, category=c, text=ident, summary=ident, tag="t", source=source, ranked=score)


FOUND = {C.playbook: [item("h1", C.playbook, 0.2), item("h2", C.playbook, 0.9), item("h3", C.playbook, 0.5)],
         C.episodes: [item("e1", C.episodes, 0.4)],
         C.invariants: [item("cage", C.invariants, 1.0, "caller"), item("w1", C.invariants, 0.3)]}


def test_no_strategy_keeps_everything() -> None:
    out, why = apply(None, FOUND)
    assert out == {c: list(v) for c, v in FOUND.items()} and why == {}


def test_the_collections_drawn_and_the_maxima() -> None:
    s = RetrievalStrategy(collections=[C.playbook, C.invariants], max_entries={C.playbook: 2, C.invariants: 0})
    out, why = apply(s, FOUND)
    assert [i.id for i in out[C.playbook]] == ["h2", "h3"]          # the best two, in their order
    assert out[C.episodes] == []                                     # not drawn
    assert [i.id for i in out[C.invariants]] == ["cage"]             # the caller's item is the caller's
    assert why[C.episodes] == "not drawn by the task's strategy"
    assert why[C.playbook] == "the task's strategy takes at most 2"


def test_a_policy_holds_a_strategy_per_task_and_bad_ones_are_refused() -> None:
    p = Policy.model_validate({"task_strategies": {"swap": {"collections": ["playbook"],
                                                            "ranking_weights": {"epistemic": 0}}}})
    assert p.task_strategies[TaskType.swap].collections == [C.playbook]
    assert Policy.from_json(p.to_json()) == p
    assert Policy().task_strategies == {}
    for bad in ({"collections": ["mortality"]}, {"max_entries": {"affect": 3}}, {"max_entries": {"playbook": -1}},
                {"ranking_weights": {"luck": 1.0}}, {"relevance_threshold": 2}):
        with pytest.raises(ValidationError):
            RetrievalStrategy.model_validate(bad)
