"""The learning loop's rules, without a database: Reflexion's comparison and pattern, ExpeL's lessons,
netting, prediction validation, promotion, demotion, archiving and pruning, cluster coherence."""

from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pytest

from grimoire.graph.knowledge.entries import Knowledge
from grimoire.graph.knowledge.reasoner import ClusterSummary, Comparison, RuleBasedReasoner
from grimoire.graph.learning import clusters, decay, netting, promote
from grimoire.graph.learning.config import LearningConfig
from grimoire.graph.learning.cycle import Curator
from grimoire.graph.learning.operations import Cycle, Op, op_id
from grimoire.graph.learning.state import Learning
from grimoire.graph.model.crystal.privacy import MemoryScope
from grimoire.graph.model.enums import EntryCategory

CYCLE = Cycle(id="a:cycle:1", agent_id="a", clade="c", seq=1, now=1_000_000, through=999, tick=50,
              trigger="manual", actor="test")
RULES = RuleBasedReasoner()


def _learning() -> Learning:
    return Learning(Knowledge(db=None, embedder=None), LearningConfig())  # type: ignore[arg-type]


@pytest.mark.parametrize(("expected", "actual", "verdict"), [
    (20, 25, "correct"), (20, 70, "correct"), (20, 71, "miscalibrated"), (20, -31, "wrong"), (-10, 45, "wrong")])
def test_a_prediction_is_correct_within_tolerance_else_miscalibrated_or_wrong(expected, actual, verdict) -> None:
    assert Comparison("return_bps", expected, actual, 50).verdict == verdict


def test_reflexion_finds_a_calibration_pattern_in_three_misses_to_one_side() -> None:
    two = Comparison("slippage_bps", 10, 80, 50, tool="swap", token_pair="WETH/USDC", history=((10, 90),))
    assert RULES.reflect(two)[1] is None
    three = Comparison("slippage_bps", 10, 80, 50, tool="swap", token_pair="WETH/USDC",
                       history=((10, 90), (5, 7), (10, 100)))
    text, lesson, judged = RULES.reflect(three)
    assert "miscalibrated" in text and judged.reasoner == "rule-based" and judged.fallback is None
    assert lesson is not None and lesson.category == EntryCategory.Insight
    assert lesson.content == ("Predictions of slippage_bps for swap on WETH/USDC underestimate the actual value by "
                              "80 on average over the last 3 misses; correct for it.")  # misses 80, 90, 70
    mixed = Comparison("x", 10, 80, 50, history=((10, -90), (10, 100)))
    assert RULES.reflect(mixed)[1] is None


def _cluster(pos: int, neg: int, regime: str | None = None) -> ClusterSummary:
    return ClusterSummary("swap|1|WETH/USDC", "swap", "1", "WETH/USDC", regime, None, pos, neg, 0, 1.5)


def test_expel_teaches_use_avoid_or_nothing() -> None:
    use, _ = RULES.distill(_cluster(7, 3))
    assert use is not None and use.category == EntryCategory.Heuristic and use.polarity == 1
    assert use.content == "Use swap for WETH/USDC on chain 1: 7 of 10 outcomes positive, mean gain +1.5."
    avoid, _ = RULES.distill(_cluster(1, 3, "bear"))
    assert avoid is not None and avoid.category == EntryCategory.Warning and avoid.polarity == -1
    assert "in bear regimes" in avoid.content
    assert RULES.distill(_cluster(2, 2))[0] is None   # mixed: nothing yet
    assert RULES.distill(_cluster(2, 0))[0] is None   # fewer than three decided outcomes


def test_three_up_and_one_down_net_plus_two() -> None:
    entry = {"id": "e", "confidence": 0.5, "validated_count": 1, "contradicted_count": 0, "category": "Heuristic"}
    deltas = [{"id": f"d{i}", "op": op, "count": 1, "episode_ids": [f"ep{i}"], "source": "reflexion"}
              for i, op in enumerate(["up", "up", "up", "down"])]
    op = netting.net_op(entry, deltas, CYCLE, 0.1, 0.15, 0.05)
    assert op.detail["net"] == 2 and op.changes["confidence"] == pytest.approx(0.7)
    assert op.changes["validated_count"] == 4 and op.changes["contradicted_count"] == 1
    assert op.changes["last_accessed_at"] == CYCLE.now and op.episode_ids == ["ep0", "ep1", "ep2", "ep3"]
    assert op.changes["live_confirmed"] is True and "half_life_ms" not in op.changes  # no half-life read: none set
    timed = netting.net_op({**entry, "half_life_ms": 14 * 86_400_000}, deltas, CYCLE, 0.1, 0.15, 0.05)
    assert timed.changes["half_life_ms"] == 28 * 86_400_000 and timed.before["half_life_ms"] == 14 * 86_400_000
    down = netting.net_op(entry, [{"id": f"x{i}", "op": "down", "count": 1} for i in range(5)], CYCLE, 0.1, 0.15, 0.05)
    assert down.changes["confidence"] == 0.05 and "last_accessed_at" not in down.changes  # the floor
    assert "live_confirmed" not in down.changes  # a net down confirms nothing
    assert op_id(CYCLE.id, op) != op_id(CYCLE.id, down)  # keyed by the deltas it nets


def test_validated_predictions_move_confidence_by_five_and_ten_percent() -> None:
    entry = {"id": "e", "confidence": 0.95}
    right = [{"id": f"r{i}", "verdict": "correct"} for i in range(3)]
    assert decay.validate_op(entry, right, 0.05, 0.10, 0.99).changes["confidence"] == 0.99  # capped
    wrong = [{"id": "w1", "verdict": "wrong"}, {"id": "w2", "verdict": "miscalibrated"},
             {"id": "r", "verdict": "correct"}]
    assert decay.validate_op({"id": "e", "confidence": 0.5}, wrong, 0.05, 0.10, 0.99).changes["confidence"] == \
        pytest.approx(0.45)


def _entry(**kw) -> dict:
    base = {"id": "e", "category": "Insight", "status": "candidate", "confidence": 0.6, "scope": "private",
            "provenance": "SelfLearned", "half_life_ms": 7 * 86_400_000.0, "validated_count": 0}
    return {**base, **kw}


def test_promotion_thresholds_and_the_local_validation_of_inherited_heuristics() -> None:
    at = LearningConfig().promote_at
    assert [o.op for o in promote.decide(_entry(), 0.6, at)] == ["PROMOTE"]
    assert promote.decide(_entry(), 0.59, at) == []
    h = _entry(category="Heuristic")
    assert promote.decide(h, 0.69, at) == []
    [op] = promote.decide(h, 0.7, at)
    assert op.changes == {"status": "active", "in_playbook": True}
    assert promote.decide(_entry(category="Heuristic", provenance="Clade"), 0.9, at) == []
    assert promote.decide(_entry(category="Heuristic", provenance="Clade", validated_count=1), 0.9, at)
    w = promote.decide(_entry(category="Warning"), 0.06, at, MemoryScope.as_written)
    # A private warning is offered to the clade (where facts may leave the node: as_written), never shared: the
    # operation changes no scope.
    assert [(o.op, o.changes) for o in w] == [("PROMOTE", {"status": "active"}),
                                              ("PROPAGATE", {"propagation_proposed": True})]
    assert w[1].detail == {"proposed": True, "scope": "shared"} and all("scope" not in o.changes for o in w)


def test_no_promotion_widens_a_scope_and_a_confidential_warning_is_never_offered() -> None:
    at = LearningConfig().promote_at
    for category in ("Warning", "Heuristic", "Insight", "CausalLink", "StrategyFragment"):
        for scope in ("private", "shared", "public"):
            for sensitivity in ("normal", "personal", "confidential"):
                entry = _entry(category=category, scope=scope, sensitivity=sensitivity)
                assert all("scope" not in o.changes for o in promote.decide(entry, 1.0, at)), entry
    secret = promote.decide(_entry(category="Warning", sensitivity="confidential"), 0.5, at)
    assert [o.op for o in secret] == ["PROMOTE"]
    assert [o.op for o in promote.decide(_entry(category="Warning", status="active", propagation_proposed=True),
                                         0.5, at)] == []  # offered once
    assert [o.op for o in promote.decide(_entry(category="Warning", scope="shared"), 0.5, at)] == ["PROMOTE"]


def test_quarantine_is_released_when_the_contradiction_no_longer_stands() -> None:
    q = _entry(status="quarantined", market_regime="bear")
    standing = [{"id": "h", "status": "active", "effective": 0.8, "market_regime": None}]
    assert promote.release(q, standing, 0.7) is None
    other_regime = [{"id": "h", "status": "active", "effective": 0.8, "market_regime": "bull"}]
    assert promote.release(q, other_regime, 0.7).changes == {"status": "candidate"}
    weakened = [{"id": "h", "status": "active", "effective": 0.5, "market_regime": None}]
    assert promote.release(q, weakened, 0.7) is not None


def _review(entry: dict, effective: float, rule: str = "document") -> list[Op]:
    learning = Learning(Knowledge(db=None, embedder=None), LearningConfig(prune_rule=rule))  # type: ignore[arg-type]
    return decay.review(entry, effective, CYCLE, learning)


def _read(**kw) -> dict:
    """An entry read often enough (two accesses) that no rule prunes it."""
    return _entry(access_count=2, **kw)


def test_demotion_low_counts_archiving_and_pruning() -> None:
    assert [o.op for o in _review(_read(status="active", in_playbook=True), 0.39)] == ["DEMOTE"]
    assert _review(_read(status="active", category="Warning"), 0.2) == []  # warnings stay active
    [low] = _review(_read(consecutive_low_confidence=1), 0.05)
    assert low.op == "LOW" and low.changes == {"consecutive_low_confidence": 2}
    [archive] = _review(_read(consecutive_low_confidence=2), 0.05)
    assert archive.op == "ARCHIVE" and archive.changes["status"] == "archived"
    assert [o.op for o in _review(_read(category="Warning", consecutive_low_confidence=2), 0.05)] == ["LOW"]
    assert [o.op for o in _review(_read(is_bloodstain=True, consecutive_low_confidence=5), 0.05)] == ["LOW"]
    assert _review(_read(half_life_ms=None), 0.05) == []  # structural: never decays
    [reset] = _review(_read(consecutive_low_confidence=2), 0.3)
    assert reset.changes == {"consecutive_low_confidence": 0}


def test_pruning_quality_is_the_documents_formula_by_default() -> None:
    """grimoire.md:1444: confidence x validated / (validated + contradicted + 1), under 0.05 with fewer than two
    accesses. 0.6 x 1/(1+0+1) = 0.3 stays; 0.6 x 1/(1+12+1) = 0.043 goes; only contradicted scores 0 and goes; an
    entry no outcome has tested has no verdict yet and stays (else every lesson would be pruned at birth)."""
    assert decay.pruning_quality(_entry(validated_count=1, contradicted_count=12)) == pytest.approx(0.6 / 14)
    assert _review(_entry(validated_count=1, contradicted_count=0, access_count=1), 0.5) == []
    [prune] = _review(_entry(validated_count=1, contradicted_count=12, access_count=1), 0.5)
    assert prune.op == "PRUNE" and prune.changes["pruned"] is True and "0.043" in prune.reason
    assert [o.op for o in _review(_entry(validated_count=0, contradicted_count=1), 0.5)] == ["PRUNE"]
    assert decay.pruning_quality(_entry(validated_count=0, contradicted_count=0)) is None
    assert _review(_entry(validated_count=0), 0.5) == []
    assert _review(_entry(validated_count=1, contradicted_count=12, access_count=2), 0.5) == []
    # the stored quality_score plays no part under the document's rule
    assert _review(_entry(validated_count=3, quality_score=0.01, access_count=0), 0.5) == []
    assert _review(_entry(category="Warning", validated_count=0), 0.5) == []
    assert _review(_entry(is_bloodstain=True, validated_count=0), 0.5) == []


def test_pruning_on_the_stored_quality_score_under_the_artifact_rule() -> None:
    [prune] = _review(_entry(quality_score=0.04, access_count=1), 0.5, "artifact")
    assert prune.op == "PRUNE" and prune.changes["pruned"] is True
    assert _review(_entry(quality_score=0.04, access_count=2), 0.5, "artifact") == []
    assert _review(_entry(quality_score=0.5, validated_count=0), 0.5, "artifact") == []  # never validated: kept
    assert _review(_entry(validated_count=0), 0.5, "artifact") == []  # no quality_score: not pruned on quality
    assert _review(_entry(category="Warning", quality_score=0.01), 0.5, "artifact") == []


def test_coherence_is_the_mean_pairwise_cosine() -> None:
    rng = np.random.default_rng(7)
    v = rng.normal(size=(6, 16))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    pairs = [float(v[i] @ v[j]) for i in range(6) for j in range(6) if i != j]
    assert clusters.coherence(v) == pytest.approx(sum(pairs) / len(pairs))
    assert clusters.coherence(np.repeat(v[:1], 4, axis=0)) == pytest.approx(1.0)


def test_clusters_by_tool_chain_and_pair_and_the_dominant_regime() -> None:
    def ep(i: int, tool: str | None, regime: str | None) -> clusters.Episode:
        return clusters.Episode(f"e{i}", tool, "1", "WETH/USDC", regime, None, "positive", 1.0, None, i, "t")
    groups = clusters.by_key([ep(1, "swap", "bull"), ep(2, "swap", "bear"), ep(3, None, "bull")])
    assert list(groups) == ["-|1|WETH/USDC", "swap|1|WETH/USDC"]
    assert clusters.dominant(["bull", "bull", "bull", "bear"]) == "bull"
    assert clusters.dominant(["bull", "bear"]) is None


@pytest.mark.skipif(sys.platform != "linux", reason="Linux nices threads one by one")
def test_cycles_run_on_a_thread_nicer_than_the_service() -> None:
    """Requests served beside a cycle come first: the Curator's thread is `niceness` nicer, the
    caller's thread is left as it was."""
    config = LearningConfig(niceness=7)
    curator = Curator(Learning(Knowledge(db=None, embedder=None), config))  # type: ignore[arg-type]
    try:
        mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        theirs = curator._worker.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result()
        assert theirs == min(19, mine + 7)
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine
    finally:
        curator.close()
