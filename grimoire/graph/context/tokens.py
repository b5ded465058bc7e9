"""Token counts for assembly: the model's tokenizer (the one count every budget in the service uses), with the
counts of strings already seen kept, since an agent's entries come back assembly after assembly.

A line is counted in pieces — its tags, its text, its summary — and a rendered text's tokens are its pieces'
added up. That holds for a tokenizer that splits on whitespace and punctuation before it splits words (BERT's
WordPiece, the default model's): every piece starts and ends at such a boundary. `additive` checks it once on
sample lines; with a tokenizer where it fails, the assembly counts the rendered text whole and trims until it fits."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

Count = Callable[[Sequence[str]], list[int]]
SAMPLES = (('<heuristic ref="h12" confidence="0.62">', "Split large ETH swaps (>50) into tranches; déjà vu.",
            "</heuristic>"),
           ('<episode ref="e3" tick="4200" summary=', '"Swapped 2 ETH &amp; 3 USDC…"', " />"),
           ("<invariants phase=\"stable\">", "\n", "</invariants>"))


def additive(count: Count) -> bool:
    """Whether the tokenizer's count of a line is the sum of its pieces' counts (checked on sample lines)."""
    pieces = [p for sample in SAMPLES for p in sample]
    counted = count([*pieces, *("".join(s) for s in SAMPLES)])
    parts, wholes = counted[:len(pieces)], counted[len(pieces):]
    sums = [sum(parts[i * 3:i * 3 + 3]) for i in range(len(SAMPLES))]
    return sums == list(wholes)


class Tokens:
    """`count` with a bounded memo of the strings it has counted; `additive` as checked once."""

    def __init__(self, count: Count, size: int = 200_000) -> None:
        self.count, self.size = count, size
        self.additive = additive(count)
        self._memo: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> list[int]:
        memo = self._memo   # a full memo is replaced, not cleared: this reference stays whole
        missing = list({t for t in texts if t not in memo})
        if not missing:
            return [memo[t] for t in texts]
        counted = dict(zip(missing, self.count(missing), strict=True))
        with self._lock:
            if len(self._memo) + len(counted) > self.size:
                self._memo = dict(counted)
            else:
                self._memo.update(counted)
        return [counted[t] if t in counted else memo[t] for t in texts]

    def whole(self, text: str) -> int:
        return self.count([text])[0] if text else 0
