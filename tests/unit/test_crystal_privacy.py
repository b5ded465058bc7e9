"""Memory crystals private by rule (knowledge-crystals.md line 6), the pure parts: which semantic types are memory
crystals, the scope governance stores under each memory-scope rule, and a marketplace listing only for knowledge
crystals."""

from __future__ import annotations

import pytest

from grimoire.graph.crystals.pricing import price
from grimoire.graph.model.crystal.governance import govern
from grimoire.graph.model.crystal.privacy import (
    MemoryCrystalShare,
    MemoryScope,
    category_type,
    is_knowledge,
    is_memory,
    refuse_share,
)

TEXT = "Swapped 2 ETH for USDC on the Uniswap pool"


def test_the_documents_memory_and_knowledge_types() -> None:
    assert {t for t in ("episode", "preference", "relationship", "fact", "goal") if is_memory(t)} == {
        "episode", "preference", "relationship", "fact", "goal"}
    assert not any(is_memory(t) for t in ("skill", "task_pattern", "insight", "general", None))
    assert is_knowledge("skill") and is_knowledge("task_pattern") and not is_knowledge("insight")
    assert category_type("Warning") == "fact" and category_type("Heuristic") == "task_pattern"


@pytest.mark.parametrize("semantic", ["episode", "fact", "preference", "relationship", "goal"])
def test_a_memory_crystal_is_stored_private_under_the_default_rule(semantic: str) -> None:
    stored = govern(TEXT, "shared", None, 0, semantic_type=semantic)
    assert (stored["scope"], stored["requested_scope"]) == ("private", "shared")
    kept = govern(TEXT, "shared", None, 0, semantic_type=semantic, memory_scope=MemoryScope.as_written)
    assert kept["scope"] == "shared" and "requested_scope" not in kept


def test_a_knowledge_crystal_keeps_its_scope() -> None:
    for semantic in ("skill", "task_pattern", "insight"):
        assert govern(TEXT, "public", None, 0, semantic_type=semantic)["scope"] == "public"


def test_an_explicit_share_is_refused_only_for_memory_crystals_under_the_rule() -> None:
    with pytest.raises(MemoryCrystalShare, match="memory crystal"):
        refuse_share("ep-1", "episode", "shared", MemoryScope.private, "shared")
    refuse_share("ep-1", "episode", "private", MemoryScope.private, "shared")
    refuse_share("ep-1", "episode", "shared", MemoryScope.as_written, "shared")
    refuse_share("sk-1", "skill", "public", MemoryScope.private, "shared")


def test_only_a_knowledge_crystal_is_listed() -> None:
    record = {"execution_count": 5, "success_count": 5, "reward_sum": 5.0}
    assert price({**record, "semantic_type": "skill"}).listed
    unlisted = price({**record, "semantic_type": "fact"})
    assert not unlisted.listed and unlisted.price_usdc is None


def test_the_curator_offers_no_warning_to_the_clade_under_the_private_rule() -> None:
    from grimoire.graph.learning import promote

    warning = {"id": "w", "category": "Warning", "status": "active", "scope": "private"}
    offered = promote.decide(warning, 0.5, {}, MemoryScope.as_written)
    assert [op.op for op in offered] == ["PROPAGATE"]
    assert promote.decide(warning, 0.5, {}, MemoryScope.private) == []  # its owner's share would be refused


def test_an_import_reads_an_old_exports_crystal_type_from_the_label_and_category() -> None:
    from grimoire.graph.transfer import BaseLabel, _semantic

    assert _semantic(BaseLabel.Episode, {}) == "episode"
    assert _semantic(BaseLabel.Entry, {"category": "Warning"}) == "fact"
    assert _semantic(BaseLabel.Entry, {"category": "Heuristic"}) == "task_pattern"
    assert _semantic(BaseLabel.Entry, {"category": "Warning", "semantic_type": "insight"}) == "insight"
    assert _semantic(BaseLabel.Agent, {}) is None
