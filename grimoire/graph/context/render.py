"""The workspace as prompt text: the spec's tagged blocks (S3.2, S3.5), one block per category, one line per
item. An item in full is `<tag ref="h1" …>text</tag>`; as a one-line summary, `<tag ref="h1" … summary="…" />`.
Episodes go in two blocks, `<recent_episodes>` (in full) and `<older_episodes>` (one line each), newest first.

The blocks' order puts the hard constraints at both ends of the prompt (lost in the middle: the start and the end
are read best): invariants first, the owner's controls and mortality last. Every line is whole text between
newlines, so with the model's tokenizer (which splits on whitespace first) a block's tokens are its lines' tokens
added up, which is how the assembly counts them; the assembly still counts the rendered text once more."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.items import Item

C = ContextCategory

ORDER: tuple[ContextCategory, ...] = (
    C.invariants, C.strategy, C.playbook, C.insights, C.causal_edges, C.episodes, C.contrarian, C.dream_hypotheses,
    C.tool_state, C.defi_snapshot, C.affect, C.mortality, C.owner_control)

REF_PREFIX: dict[ContextCategory, str] = {
    C.invariants: "v", C.strategy: "s", C.playbook: "h", C.episodes: "e", C.insights: "i", C.causal_edges: "c",
    C.contrarian: "x", C.dream_hypotheses: "d", C.tool_state: "t", C.defi_snapshot: "f", C.mortality: "m",
    C.affect: "a", C.owner_control: "o"}

RECENT, OLDER = "recent_episodes", "older_episodes"


def _attrs(ref: str, item: Item) -> str:
    return " ".join([f"ref={quoteattr(ref)}", *(f"{k}={quoteattr(v)}" for k, v in item.attrs)])


def full_parts(ref: str, item: Item) -> tuple[str, str, str]:
    """A line in full, in three pieces: its opening tag, its text, its closing tag."""
    return f"<{item.tag} {_attrs(ref, item)}>", escape(" ".join(item.text.split())), f"</{item.tag}>"


def summary_parts(ref: str, item: Item) -> tuple[str, str, str]:
    """A line as one-line summary, in three pieces: the tag up to the summary, the summary, the end."""
    return f"<{item.tag} {_attrs(ref, item)} summary=", quoteattr(" ".join(item.summary.split())), " />"


def full_line(ref: str, item: Item) -> str:
    return "".join(full_parts(ref, item))


def summary_line(ref: str, item: Item) -> str:
    return "".join(summary_parts(ref, item))


def block_names(category: ContextCategory) -> tuple[str, ...]:
    """The block (or, for episodes, the two blocks) a category is rendered in."""
    return (RECENT, OLDER) if category == C.episodes else (category.value,)


def opening(name: str, attrs: dict[str, str] | None = None) -> str:
    extra = "".join(f" {k}={quoteattr(v)}" for k, v in (attrs or {}).items())
    return f"<{name}{extra}>"


def closing(name: str) -> str:
    return f"</{name}>"


def block(name: str, lines: list[str], attrs: dict[str, str] | None = None) -> str:
    return "\n".join([opening(name, attrs), *lines, closing(name)])


def document(blocks: list[str]) -> str:
    return "\n".join(b for b in blocks if b)
