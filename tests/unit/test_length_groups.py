"""The ONNX encoder's grouping of texts by token length (graph/embeddings_onnx.py): every text once, groups of at
most `most`, and padding bounded where the lengths allow it."""

from __future__ import annotations

import random

from grimoire.graph.embeddings_onnx import GROUP_SLACK, length_groups


def padded(lengths: list[int], groups: list[list[int]]) -> int:
    return sum(len(g) * max(lengths[i] for i in g) for g in groups)


def test_every_text_once_shortest_first() -> None:
    lengths = [30, 5, 12, 5, 80, 31, 29]
    groups = length_groups(lengths, 64)
    flat = [i for g in groups for i in g]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)


def test_padding_within_slack_of_the_tokens_held() -> None:
    rng = random.Random(7)
    for _ in range(200):
        lengths = [rng.randint(4, 120) for _ in range(rng.randint(1, 40))]
        groups = length_groups(lengths, 64)
        for g in groups:  # a group of two or more stays within the slack; a lone text has no padding at all
            assert len(g) * max(lengths[i] for i in g) <= GROUP_SLACK * sum(lengths[i] for i in g) + 1e-9
        assert padded(lengths, groups) <= len(lengths) * max(lengths)  # never more than one call for all


def test_mixed_lengths_pay_far_less_than_one_padded_call() -> None:
    lengths = [6] * 10 + [80] * 10  # one call would pay 80 for each of the short texts too
    groups = length_groups(lengths, 64)
    assert len(groups) == 2
    assert padded(lengths, groups) == sum(lengths) < 0.6 * len(lengths) * max(lengths)


def test_equal_lengths_share_one_call_up_to_the_batch_size() -> None:
    assert length_groups([10] * 20, 64) == [list(range(20))]
    assert [len(g) for g in length_groups([10] * 20, 8)] == [8, 8, 4]
    assert length_groups([], 8) == []
