"""When a reach is ranked exactly (graph/retrieval/reach.py ExactRule): at most exact_below always, and up to
exact_fallback_below while the index would be asked for at least 1/ratio as many candidates as the caller sees."""

from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.reach import ExactRule, Reach, exact_rule


def test_a_small_share_of_a_large_store_is_ranked_exactly() -> None:
    rule = ExactRule(below=3_000, upto=20_000, ratio=4.0, top=20, factor=1, most=10_000)
    # 3,000 of a million: the index would be asked for 10,000 (its most) to keep 20 of them.
    assert Reach(3_001, 1_000_000, False).exact(rule)
    assert not Reach(3_001, 1_000_000, False).exact(3_000)
    # 10,000 of a million: 3,000 asked, 12,000 ranked exactly at most.
    assert rule.limit(Reach(10_000, 1_000_000, False)) == 12_000
    assert Reach(10_000, 1_000_000, False).exact(rule)
    # 100,000 of a million: 300 asked; only exact_below.
    assert rule.limit(Reach(100_000, 1_000_000, False)) == 3_000
    assert not Reach(100_000, 1_000_000, False).exact(rule)
    # Never past exact_fallback_below, never a capped count.
    assert rule.limit(Reach(19_000, 100_000_000, False)) == 20_000
    assert not Reach(20_000, 100_000_000, True).exact(rule)


def test_without_a_ratio_the_rule_is_exact_below() -> None:
    rule = ExactRule(below=3_000, upto=20_000, ratio=0.0)
    assert rule.limit(Reach(3_001, 1_000_000, False)) == 3_000
    assert Reach(3_000, 1_000_000, False).exact(rule) and not Reach(3_001, 1_000_000, False).exact(rule)


def test_the_configured_rule() -> None:
    cfg = RetrievalConfig()
    rule = exact_rule(cfg, 10_000)
    assert (rule.below, rule.upto, rule.ratio, rule.top, rule.factor) == (
        cfg.exact_below, cfg.exact_fallback_below, cfg.exact_index_ratio, cfg.per_backend, cfg.candidates_factor)
