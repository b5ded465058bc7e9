"""Every retrieval constant is in graph/retrieval/config.py (README: "All constants are in graph/retrieval/config.py"),
so GRIMOIRE_RETRIEVAL overrides it: the near-duplicate cosine of the hybrid MMR, the adaptive decision's thresholds
and coverage cosine, the importance map. Before, these lived as literals in hybrid.py, decision.py, pipeline.py and
rerank.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grimoire.graph.retrieval import rerank
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import AdaptiveDecisionConfig, RetrievalConfig
from grimoire.graph.retrieval.decision import RetrievalDecision, decide
from grimoire.graph.settings import Settings

RETRIEVAL = Path(__file__).resolve().parents[2] / "grimoire" / "graph" / "retrieval"


def test_the_settings_override_the_moved_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIMOIRE_RETRIEVAL", '{"duplicate_cosine": 0.9, "importance": {"critical": 0.8}, '
                                             '"adaptive": {"coverage_cosine": 0.5, "full_curiosity": 0.6}}')
    cfg = Settings().retrieval
    assert (cfg.duplicate_cosine, cfg.adaptive.coverage_cosine, cfg.adaptive.full_curiosity) == (0.9, 0.5, 0.6)
    assert cfg.importance == {"critical": 0.8} and cfg.adaptive.covered == 5
    d = RetrievalConfig()
    assert (d.duplicate_cosine, d.adaptive.coverage_cosine, d.adaptive.coverage_k) == (0.95, 0.6, 20)


def test_the_adaptive_decision_reads_its_thresholds() -> None:
    assert decide(0.7, 0.2, 0) == RetrievalDecision.light                                   # the spec's defaults
    assert decide(0.7, 0.2, 0, AdaptiveDecisionConfig(full_curiosity=0.6)) == RetrievalDecision.full
    assert decide(0.5, 0.2, 10) == RetrievalDecision.light
    assert decide(0.5, 0.2, 10, AdaptiveDecisionConfig(covered_curiosity=0.6)) == RetrievalDecision.semantic_only
    assert decide(0.05, 0.2, 10) == RetrievalDecision.none
    assert decide(0.05, 0.2, 10, AdaptiveDecisionConfig(routine_arousal=0.1)) == RetrievalDecision.semantic_only
    assert decide(0.5, 0.75, 0, AdaptiveDecisionConfig(full_arousal=0.8)) == RetrievalDecision.light


def test_quality_falls_back_to_the_configured_importance() -> None:
    critical = Candidate(id="e", kind="episode", importance="critical")
    assert rerank.quality(critical) == 0.75
    assert rerank.quality(critical, RetrievalConfig(importance={"critical": 0.9})) == 0.9
    assert rerank.quality(Candidate(id="x", kind="episode"), RetrievalConfig(importance_default=0.1)) == 0.1
    assert rerank.quality(Candidate(id="q", kind="entry", quality_score=0.42, importance="critical")) == 0.42


def test_no_module_of_retrieval_keeps_its_own_copy() -> None:
    for path in RETRIEVAL.rglob("*.py"):
        if path.name == "config.py":
            continue
        text = path.read_text()
        assert not re.search(r"\b0\.95\b|\"emergency\"|>= 0\.6\b|curiosity > 0\.8", text), path


def test_the_final_score_is_additive_by_default_and_the_documents_product_as_a_setting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Two entries with the same factors but quality: a relevant one of low quality and a less relevant one of high
    # quality. Additive (grimoire.md line 1135) ranks the relevant one first; the product (line 325) lets the low
    # quality pull it under: 0.9 x 0.2 x 1.0 = 0.18 < 0.9 x 0.9 x 0.5 = 0.405.
    relevant = {"rrf": 1.0, "effective_confidence": 0.9, "quality": 0.2, "recency": 0.0, "regime_match": 0.0}
    good = {**relevant, "rrf": 0.5, "quality": 0.9}
    item = Candidate(id="e", kind="entry")
    additive = RetrievalConfig()
    assert additive.rerank_form == "additive"
    assert rerank.score(relevant, item, additive) == pytest.approx(0.30 + 0.225 + 0.04)
    assert rerank.score(relevant, item, additive) > rerank.score(good, item, additive)
    monkeypatch.setenv("GRIMOIRE_RETRIEVAL", '{"rerank_form": "product"}')
    product = Settings().retrieval
    assert rerank.score(relevant, item, product) == pytest.approx(0.18)
    assert rerank.score(good, item, product) == pytest.approx(0.405)
    # The bloodstain boost multiplies either form.
    assert rerank.score(relevant, Candidate(id="b", kind="entry", is_bloodstain=True), product) == pytest.approx(0.216)
