"""MEMORY.md, core memory as a file (../shared/spec/moltbot-memory.md, section 4): the four blocks under
their headings, in the spec's layout, rendered from the graph and read back (a file-based agent's core
memory moves into the graph and out again unchanged). Pinned critical facts carry " (pinned)"."""

from __future__ import annotations

import re

from grimoire.graph.errors import Invalid
from grimoire.graph.memory.blocks import CAP_TOKENS, GUIDES, TITLES, Block, lines

PIN = " (pinned)"
_HEADING = re.compile(r"^##\s+(.+?)\s*$")
_BY_TITLE = {title.lower(): block for block, title in TITLES.items()}


def render(contents: dict[Block, str], pinned: list[str], cap: int = CAP_TOKENS) -> str:
    out = ["# MEMORY.md — Core Memory", f"<!-- TOKEN BUDGET: ~{cap:,} tokens. Rewritten during reflection. -->"]
    keep = {p.strip() for p in pinned}
    for block in Block:
        out += [f"## {TITLES[block]}", f"<!-- {GUIDES[block]} -->"]
        for line in lines(contents.get(block, "")):
            out.append(line + (PIN if block is Block.critical and line.strip() in keep else ""))
    return "\n".join(out) + "\n"


def parse(text: str) -> tuple[dict[Block, str], list[str]]:
    """The blocks' contents and the pinned critical facts of a MEMORY.md (comments and the title dropped;
    an unknown heading is an error: its lines would have no block)."""
    contents: dict[Block, list[str]] = {b: [] for b in Block}
    pinned: list[str] = []
    block: Block | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.startswith("# ") or re.fullmatch(r"\s*<!--.*-->\s*", line):
            continue
        heading = _HEADING.match(line)
        if heading:
            block = _BY_TITLE.get(heading.group(1).lower())
            if block is None:
                raise Invalid(f"MEMORY.md: unknown section {heading.group(1)!r}")
            continue
        if block is None:
            raise Invalid(f"MEMORY.md: a line before any section: {line!r}")
        if block is Block.critical and line.endswith(PIN):
            line = line[: -len(PIN)]
            pinned.append(line)
        contents[block].append(line)
    return {b: "\n".join(x) + ("\n" if x else "") for b, x in contents.items()}, pinned
