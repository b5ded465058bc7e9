"""A reflection's output budget (10.2: 8,000 tokens, the least important proposals dropped first) and the
verdicts a person may give (10.6), without a database (graph/memory/reflection_format.py, approval.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from grimoire.graph.errors import Invalid
from grimoire.graph.memory.approval import ApprovalDecision, Verdict, chosen
from grimoire.graph.memory.reflection_format import Evolution, Item, ItemKind, Summary, fit, render


def words(texts: Sequence[str]) -> list[int]:
    """A stand-in tokenizer: a token per word."""
    return [len(t.split()) for t in texts]


def summary(n_archive: int, n_facts: int) -> Summary:
    items = [Item(f"a1-{i}", ItemKind.archive, f"Episodic 2026-01-{i % 28 + 1:02d}: an old note number {i} "
                  "about something long forgotten (score: 0.03)", {"memory_id": f"m{i}"}) for i in range(n_archive)]
    items += [Item(f"f1-{i}", ItemKind.fact, f"Fact {i} from an episode", {"relations": [
        {"from": "person--alex", "relation": "uses", "to": f"tool--t{i}"}]}) for i in range(n_facts)]
    items.append(Item("c1-1", ItemKind.core, "Active Context: 1 line added",
                      {"block": "context", "title": "Active Context", "before": "", "after": "- Shipping Friday\n"}))
    return Summary(number=1, at=1_770_000_000_000, items=items, evolution=Evolution("l", "u", "t"),
                   questions=["Still relevant?"], episodes=3, entities=2, procedures=0, reviewed=0,
                   next_at=1_770_010_000_000)


def test_the_summary_keeps_to_its_budget_dropping_archival_first() -> None:
    s = fit(summary(900, 20), words)
    assert s.tokens_used <= 8_000 == s.budget
    kinds = [i.kind for i in s.items]
    assert kinds.count(ItemKind.fact) == 20 and kinds.count(ItemKind.core) == 1   # kept
    assert 0 < kinds.count(ItemKind.archive) < 900                                  # trimmed
    assert words([render(s)])[0] == s.tokens_used
    small = fit(summary(3, 1), words)
    assert len(small.items) == 5 and small.tokens_used < 8_000


ITEMS = [Item("f1-1", ItemKind.fact, "x", {"summary": "s"}), Item("a1-1", ItemKind.archive, "y", {}),
         Item("p1-1", ItemKind.procedure, "z", {"trigger": "t", "steps": ["a"]})]


def test_the_verdicts() -> None:
    assert [i.id for i in chosen(ITEMS, Verdict(ApprovalDecision.approve))] == ["f1-1", "a1-1", "p1-1"]
    assert chosen(ITEMS, Verdict(ApprovalDecision.reject)) == []
    assert [i.id for i in chosen(ITEMS, Verdict(ApprovalDecision.approve_part, items=["a1-1"]))] == ["a1-1"]
    changed = chosen(ITEMS, Verdict(ApprovalDecision.approve_with_changes, exclude=["a1-1"],
                                    changes={"p1-1": {"steps": ["b", "c"]}}))
    assert [(i.id, i.data.get("steps")) for i in changed] == [("f1-1", None), ("p1-1", ["b", "c"])]
    for bad in (Verdict(ApprovalDecision.approve_part), Verdict(ApprovalDecision.approve_part, items=["nope"]),
                Verdict(ApprovalDecision.approve, exclude=["a1-1"]), Verdict(ApprovalDecision.approve_with_changes),
                Verdict(ApprovalDecision.approve_with_changes, changes={"a1-1": {"memory_id": "other"}}),
                Verdict(ApprovalDecision.approve_with_changes, changes={"p1-1": {"steps": 5}}),
                Verdict(ApprovalDecision.approve_with_changes, changes={"p1-1": {"steps": "Run tests"}}),
                Verdict(ApprovalDecision.approve_with_changes, changes={"p1-1": {"steps": []}}),
                Verdict(ApprovalDecision.approve_with_changes, changes={"f1-1": {"summary": " "}})):
        with pytest.raises(Invalid):
            chosen(ITEMS, bad)
