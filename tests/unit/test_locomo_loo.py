"""Leave-one-conversation-out (bench/locomo_loo.py, issue 41): each fold chooses on four conversations and scores
on the fifth; a candidate is kept only when its held-out gain clears the gain's spread across folds."""

from __future__ import annotations

import pytest

from bench.locomo_eval import Asked
from bench.locomo_loo import SHIPPED, folds, report, table, verdicts


def answers(per_conversation: list[float], category: str = "single-hop", n: int = 4) -> list[Asked]:
    """`n` questions per conversation, each with recall@k = the conversation's value at every k."""
    return [Asked(c, category, {5: r, 10: r, 20: r}) for c, r in enumerate(per_conversation) for _ in range(n)]


SHIPPED_ = answers([0.5, 0.5, 0.5, 0.5, 0.5])
STEADY = answers([0.6, 0.58, 0.61, 0.59, 0.6])       # a little better everywhere
FITTED = answers([0.95, 0.95, 0.3, 0.3, 0.3])        # much better on two, worse on three


def test_each_fold_chooses_on_the_other_four_and_scores_the_fifth() -> None:
    found = folds({SHIPPED: SHIPPED_, "steady": STEADY, "fitted": FITTED}, 5)
    assert [f.held_out for f in found] == [0, 1, 2, 3, 4]
    # leaving out conversation 2, the others' mean is 0.625 for fitted (0.95, 0.95, 0.3, 0.3) against steady's 0.5925
    assert found[2].chosen == "fitted" and found[2].tuned == pytest.approx(0.625)
    assert found[2].scored["recall@10"] == pytest.approx(0.3)  # and the fifth shows what that choice was worth
    # leaving out conversation 0, fitted's mean on the rest is 0.4625: steady wins
    assert found[0].chosen == "steady" and found[0].scored["recall@10"] == pytest.approx(0.6)
    assert all(f.shipped["recall@10"] == pytest.approx(0.5) for f in found)


def test_ties_go_to_the_shipped_configuration() -> None:
    found = folds({SHIPPED: SHIPPED_, "same": answers([0.5] * 5)}, 5)
    assert {f.chosen for f in found} == {SHIPPED}


def test_the_table_has_each_categorys_mean_and_spread_and_the_tuning_gap() -> None:
    mixed = {SHIPPED: SHIPPED_ + answers([0.2, 0.4, 0.2, 0.4, 0.2], "multi-hop")}
    section = table(folds(mixed, 5))
    assert section["recall@10_by_category"]["single-hop"] == {"mean": pytest.approx(0.5), "spread": 0.0}
    hop = section["recall@10_by_category"]["multi-hop"]
    assert hop["mean"] == pytest.approx(0.28) and hop["spread"] == pytest.approx(0.09798, abs=1e-4)
    # with nothing to choose, the four's mean less the fifth's averages to nothing over the folds
    assert section["gap_recall@10"] == pytest.approx(0.0, abs=1e-9)
    fitted = table(folds({SHIPPED: SHIPPED_, "fitted": FITTED}, 5))
    assert fitted["gap_recall@10"] > 0.1  # fitting to four shows up as a gap on the fifth


def test_a_change_is_kept_only_when_its_gain_clears_the_spread() -> None:
    found = verdicts({SHIPPED: SHIPPED_, "steady": STEADY, "fitted": FITTED}, 5)
    assert found["steady"]["kept"] and found["steady"]["gain_mean"] == pytest.approx(0.096)
    assert found["steady"]["gains"] == pytest.approx([0.1, 0.08, 0.11, 0.09, 0.1])
    assert not found["fitted"]["kept"]  # its mean gain (0.06) is below its spread
    assert found["fitted"]["gain_mean"] == pytest.approx(0.06)


def test_the_report_names_the_held_out_conversation_of_each_fold() -> None:
    ids = ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
    out = report({SHIPPED: SHIPPED_, "steady": STEADY}, ids, {SHIPPED: {}, "steady": {"mmr_lambda": 1.0}})
    assert [f["held_out"] for f in out["folds"]] == ids
    assert {f["chosen"] for f in out["folds"]} == {"steady"}
    assert out["held_out"]["recall@10"]["mean"] == pytest.approx(0.596)
    assert out["against_shipped"]["steady"]["kept"]
