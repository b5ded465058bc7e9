"""ExpeL's clusters: an agent's unconsolidated episodes grouped by tool, chain and token pair (and by
regime for compression), and a cluster's coherence (mean pairwise cosine of its embeddings). Pure."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from grimoire.graph.knowledge.reasoner import ClusterSummary

SAMPLE_TEXTS = 5
DOMINANT = 0.7  # a regime or strategy "of the cluster" when at least this share of it has it


@dataclass(frozen=True)
class Episode:
    id: str
    tool: str | None
    chain: str | None
    token_pair: str | None
    regime: str | None
    strategy: str | None
    outcome: str
    gain: float | None
    confidence: float | None
    tick: int | None
    text: str

    @classmethod
    def of(cls, row: dict[str, Any]) -> Episode:
        return cls(**{name: row.get(name) for name in cls.__dataclass_fields__})  # type: ignore[arg-type]


def key_of(ep: Episode) -> str:
    return "|".join(x or "-" for x in (ep.tool, ep.chain, ep.token_pair))


def by_key(episodes: Iterable[Episode]) -> dict[str, list[Episode]]:
    groups: dict[str, list[Episode]] = defaultdict(list)
    for ep in episodes:
        groups[key_of(ep)].append(ep)
    return dict(sorted(groups.items()))


def by_regime(episodes: Iterable[Episode]) -> dict[str, list[Episode]]:
    groups: dict[str, list[Episode]] = defaultdict(list)
    for ep in episodes:
        if ep.regime:
            groups[ep.regime].append(ep)
    return dict(sorted(groups.items()))


def dominant(values: Sequence[str | None]) -> str | None:
    """The value at least 70% of the cluster shares, if one does."""
    counted = Counter(v for v in values if v)
    if not counted or not values:
        return None
    value, n = counted.most_common(1)[0]
    return value if n / len(values) >= DOMINANT else None


def summary(key: str, episodes: Sequence[Episode]) -> ClusterSummary:
    first = episodes[0]
    outcomes = Counter(ep.outcome for ep in episodes)
    gains = [ep.gain for ep in episodes if ep.gain is not None]
    regimes = {ep.regime for ep in episodes}
    strategies = {ep.strategy for ep in episodes}
    return ClusterSummary(
        key=key, tool=first.tool, chain=first.chain, token_pair=first.token_pair,
        regime=regimes.pop() if len(regimes) == 1 else None,
        strategy=strategies.pop() if len(strategies) == 1 else None,
        positives=outcomes["positive"], negatives=outcomes["negative"],
        neutrals=len(episodes) - outcomes["positive"] - outcomes["negative"],
        mean_gain=round(sum(gains) / len(gains), 6) if gains else None,
        texts=tuple(ep.text for ep in episodes[:SAMPLE_TEXTS]),
    )


def coherence(vectors: np.ndarray) -> float:
    """Mean pairwise cosine of L2-normalised rows: (|sum|^2 - n) / (n (n - 1))."""
    n = len(vectors)
    if n < 2:
        return 1.0
    total = vectors.sum(axis=0)
    return float((total @ total - n) / (n * (n - 1)))


def mean_confidence(episodes: Sequence[Episode], default: float) -> float:
    return sum(ep.confidence if ep.confidence is not None else default for ep in episodes) / len(episodes)
