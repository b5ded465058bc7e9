"""The 13 core mental models as a fixed block of every assembled workspace (grimoire.md, Mental Models Library:
"These 13 models are always loaded in the golem's context").

The block is the same text for every agent and every turn, so it goes first in the rendered prompt: a model's
prompt cache keeps the longest unchanged prefix, and this is the part that never changes (context-governor.md's
cache-stable ordering: stable parts first). It is taken off the budget before the categories share the rest, in
the fullest form that fits in `max_share` of the budget: each model with its DeFi application, else the names on
one line, else (a budget too small for even that) left out, and the answer says which and why. The models'
entries are then not repeated among the insights."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from xml.sax.saxutils import escape, quoteattr

from pydantic import BaseModel

from grimoire.graph.knowledge.mental_models import IDS, MODELS

BLOCK = "mental_models"
Count = Callable[[Sequence[str]], list[int]]


class Form(StrEnum):
    full = "full"        # each model with its DeFi application, one line each
    names = "names"      # the 13 names on one line
    omitted = "omitted"  # the budget cannot hold even the names


def full_text() -> str:
    lines = [f"<model ref={quoteattr(f'mm{m.number}')} name={quoteattr(m.name)}>{escape(m.application)}</model>"
             for m in MODELS]
    return "\n".join([f"<{BLOCK}>", *lines, f"</{BLOCK}>"])


def names_text() -> str:
    return f"<{BLOCK}>{escape('; '.join(m.name for m in MODELS))}</{BLOCK}>"


TEXTS: dict[Form, str] = {Form.full: full_text(), Form.names: names_text()}


class ScaffoldOut(BaseModel):
    """The mental models' block of a workspace: in which form it went in, its tokens, the models it names."""

    form: Form
    tokens: int
    ids: list[str]
    reason: str


@dataclass(frozen=True)
class Scaffold:
    form: Form
    text: str
    tokens: int
    reason: str

    def out(self) -> ScaffoldOut:
        return ScaffoldOut(form=self.form, tokens=self.tokens, ids=list(IDS) if self.text else [],
                           reason=self.reason)


NONE = Scaffold(Form.omitted, "", 0, "turned off (context.mental_models_in_context)")


def fit(budget: int, max_share: float, count: Count) -> Scaffold:
    """The fullest form of the block within max_share of the budget, its tokens counted with the budget's own
    tokenizer (the newline that joins it to the rest is whitespace, no token of its own)."""
    allowed = int(budget * max_share)
    tokens = dict(zip(TEXTS, count(list(TEXTS.values())), strict=True))
    for form, text in TEXTS.items():
        if tokens[form] <= allowed:
            return Scaffold(form, text, tokens[form],
                            f"{tokens[form]} tokens, within {max_share:.0%} of the budget ({allowed})")
    return Scaffold(Form.omitted, "", 0, f"even the names take {tokens[Form.names]} tokens, more than "
                                         f"{max_share:.0%} of the budget ({allowed})")
