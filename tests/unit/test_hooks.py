"""The after_turn mapping from a turn to episodes and the before_compact markdown, without a database."""

from __future__ import annotations

import pytest

from grimoire.graph import hooks
from grimoire.graph.errors import Invalid
from grimoire.graph.hooks import TurnIn
from grimoire.graph.model.enums import EpisodeType


def _turn(**extra) -> TurnIn:
    return TurnIn.model_validate({
        "turn_id": "t-1", "tick": 7, "regime": "bull", "strategy": "eth-dca", "items": [
            {"kind": "message", "role": "user", "text": "rebalance the LP?"},
            {"kind": "tool_call", "tool": "uniswap.quote", "text": "quote 1 WETH -> USDC", "tick": 8},
            {"kind": "tool_result", "tool": "uniswap.quote", "text": "3,012 USDC", "outcome": "positive"},
            {"kind": "observation", "text": "gas spiked", "type": "regime_shift", "interrupted": True,
             "prediction": {"metric": "slippage_bps", "expected": 12, "actual": 15}},
        ], **extra})


def test_each_item_becomes_an_episode_with_the_turns_defaults() -> None:
    eps = hooks.to_episodes(_turn(), "golem-1")
    assert [e.type for e in eps] == [EpisodeType.conversation, EpisodeType.action, EpisodeType.observation,
                                     EpisodeType.regime_shift]
    assert eps[0].text == "user: rebalance the LP?" and eps[1].text == "quote 1 WETH -> USDC"
    assert [e.tick for e in eps] == [7, 8, 7, 7]
    assert {e.regime.value for e in eps} == {"bull"} and {e.agent_id for e in eps} == {"golem-1"}
    assert eps[2].tool == "uniswap.quote" and eps[2].outcome.value == "positive"
    assert [e.follows for e in eps] == [None, eps[0].id, eps[1].id, eps[2].id]
    last = eps[3].model_dump()
    assert last["interrupted"] is True and last["strategy"] == "eth-dca"
    assert last["prediction"]["expected"] == 12 and last["prediction"]["actual"] == 15


def test_the_six_situation_fields_are_declared_once_and_every_one_inherited() -> None:
    """An episode, a turn and a turn's item carry the same situation (one declaration, the same limits); each of
    its fields an item leaves unset takes the turn's."""
    from grimoire.graph.model.episode import EpisodeIn, EpisodeSituation

    six = {"tick", "block", "regime", "strategy", "chain", "token_pair"}
    assert set(EpisodeSituation.model_fields) == six
    assert all(issubclass(c, EpisodeSituation) for c in (EpisodeIn, TurnIn, hooks.TurnItem))
    turn = _turn(block=19_000_000, chain="1", token_pair="WETH/USDC")
    first = hooks.to_episodes(turn, "golem-1")[0].model_dump(mode="json", include=six)
    assert first == {"tick": 7, "block": 19_000_000, "regime": "bull", "strategy": "eth-dca", "chain": "1",
                     "token_pair": "WETH/USDC"}


def test_ids_derive_from_owner_turn_and_position() -> None:
    a = [e.id for e in hooks.to_episodes(_turn(), "golem-1")]
    assert a == [e.id for e in hooks.to_episodes(_turn(), "golem-1")]
    b = [e.id for e in hooks.to_episodes(_turn(), "golem-2")]
    assert not set(a) & set(b) and len(set(a)) == 4
    assert a[0].startswith("turn-") and a[0].endswith("-000") and a[3].endswith("-003")
    assert hooks.to_episodes(_turn(follows="ep-previous"), "golem-1")[0].follows == "ep-previous"


def test_an_item_the_episode_model_refuses_is_named() -> None:
    bad = _turn()
    bad.items[3].prediction = {"expected": "lots"}
    with pytest.raises(Invalid, match=r"items\[3\]\.prediction"):
        hooks.to_episodes(bad, "golem-1")


def test_the_markdown_is_stable_and_complete() -> None:
    state = {
        "agent_id": "golem-1", "at": 1_700_000_000_000,
        "warnings": [{"id": "w-1", "content": "never LP in crisis", "effective_confidence": 0.8, "own": True,
                      "agent_id": "golem-1"},
                     {"id": "w-2", "content": "oracle lags", "effective_confidence": 0.5, "own": False,
                      "agent_id": "golem-2"}],
        "heuristics": [{"id": "h-1", "content": "x" * 400, "effective_confidence": 0.75, "strategy": "eth-dca",
                        "own": True}],
        "episodes": [{"id": "e-1", "type": "action", "text": "swap", "tick": 3, "tool": "swap",
                      "outcome": "negative", "interrupted": True}],
        "mental_models": [{"number": 1, "name": "First Principles", "application": "Is this yield real?"}],
    }
    md = hooks.render(state)
    assert md == hooks.render(state)
    assert md.startswith("## Memory preserved across compaction: golem-1 (2023-11-14T22:13:20Z)")
    assert "- [w-1] (confidence 0.80) never LP in crisis" in md
    assert "- [w-2] (confidence 0.50, from golem-2) oracle lags" in md
    assert "(confidence 0.75, strategy eth-dca) " + "x" * 279 + "…" in md
    assert "- [e-1] (tick 3, action, tool swap, negative, interrupted) swap" in md
    assert "1. First Principles: Is this yield real?" in md
    empty = hooks.render({**state, "warnings": [], "mental_models": []})
    assert "### Active warnings (0)\n\n_none_" in empty and "mental models" not in empty
