"""What a decision used of its workspace (context-governor.md S4, "How referenced is detected"): an item counts
as referenced when the response cites it (its id, its ref, h1, e3, …, or its search result's grimoire:// source —
given as cited or written in the response), quotes it (eight words in a row), or paraphrases it (a response
sentence whose embedding is more than 0.8 similar to the item's text, cosine). Approximate by design: a false
negative costs little."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from grimoire.graph.context import citations

SIMILAR = 0.8
QUOTE_WORDS = 8
MAX_SENTENCES = 60
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_WORDS = re.compile(r"[\w$%.-]+")


@dataclass(frozen=True)
class Reference:
    category: str
    entry_id: str
    via: str            # cited | quoted | similar


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORDS.findall(text)]


def _shingles(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def sentences(response: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(response) if len(s.split()) >= 4][:MAX_SENTENCES]


def detect(injected: Sequence[Mapping[str, Any]], response: str | None, cited: Sequence[str],
           embed: Callable[[list[str]], np.ndarray]) -> list[Reference]:
    """Each injected item (category `c`, id, ref, shown text `x`) the response referenced, once, by the first
    way found: cited, quoted, similar."""
    found: dict[str, Reference] = {}
    named = {citations.cited_id(c).lower() for c in cited if c.strip()}
    text = response or ""
    tokens = set(_words(text))
    for item in injected:
        ref, ident = str(item.get("ref", "")).lower(), str(item["id"])
        if ident.lower() in named or ref in named or (ref and ref in tokens) or (len(ident) > 8 and ident in text):
            found[ident] = Reference(item["c"], ident, "cited")
    if text:
        said = _shingles(_words(text), QUOTE_WORDS)
        for item in injected:
            ident = str(item["id"])
            if ident not in found and _shingles(_words(str(item.get("x", ""))), QUOTE_WORDS) & said:
                found[ident] = Reference(item["c"], ident, "quoted")
        rest = [i for i in injected if str(i["id"]) not in found and str(i.get("x", "")).strip()]
        parts = sentences(text)
        if rest and parts:
            vectors = embed([str(i["x"]) for i in rest] + parts)
            items, said_v = vectors[:len(rest)], vectors[len(rest):]
            best = (items @ said_v.T).max(axis=1)   # the model's vectors are unit length: cosine
            for item, score in zip(rest, best, strict=True):
                if float(score) > SIMILAR:
                    found[str(item["id"])] = Reference(item["c"], str(item["id"]), "similar")
    return list(found.values())
