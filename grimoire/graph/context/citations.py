"""The workspace's Grimoire items as citable search results (context-governor.md, Memory Citation Mechanics): each
an Anthropic `search_result` content block whose source is `grimoire://{namespace}/{type}/{id}`, with citations
enabled, so a model that cites answers with the source, and the feedback (Loop 1) reads the item's id back out
of it.

The blocks are ordered by stability, as the document's prompt-cache alignment asks: the items that have held
their current form longest first (their valid-from, else recorded time: a new version starts a new form), the
newest last, so a prompt cache keeps the unchanged prefix across turns. Only the Grimoire's items are sources;
what the caller supplied and the service's own lines (the mood) are the caller's to cite."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

from grimoire.graph.context.workspace import ContextEntry

SCHEME = "grimoire://"


class TextContent(BaseModel):
    type: Literal["text"] = "text"
    text: str


class CitationsSetting(BaseModel):
    enabled: bool = True


class SearchResultBlock(BaseModel):
    """One Grimoire item as an Anthropic search_result content block."""

    type: Literal["search_result"] = "search_result"
    source: str = Field(description="grimoire://{namespace}/{type}/{id}: a citation names it; feedback's `cited` "
                                    "takes it as it is")
    title: str
    content: list[TextContent]
    citations: CitationsSetting = CitationsSetting()


def source(namespace: str, kind: str, item_id: str) -> str:
    return f"{SCHEME}{namespace}/{kind}/{item_id}"


def cited_id(cited: str) -> str:
    """A citation's item id: the last part of a grimoire:// source (an id or a ref is returned as it is)."""
    text = cited.strip()
    if not text.lower().startswith(SCHEME):
        return text
    parts = text[len(SCHEME):].split("/", 2)
    return parts[2] if len(parts) == 3 else text


def blocks(namespace: str, entries: Iterable[ContextEntry]) -> list[SearchResultBlock]:
    """The workspace's Grimoire items as blocks, the longest-unchanged first (then by id: one order for equal
    times)."""
    ours = sorted((e for e in entries if e.source == "grimoire"), key=lambda e: (e.since, e.id))
    return [SearchResultBlock(source=source(namespace, e.tag, e.id), title=f"[{e.tag.upper()}] {e.id}",
                              content=[TextContent(text=e.text)]) for e in ours]
