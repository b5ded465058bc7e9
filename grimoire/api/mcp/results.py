"""What tools return when the route has no response model of its own: a record, a text, a page."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")

LIST_CAP = 100  # no list tool returns more than this in one call: page on with next_offset


class Record(BaseModel):
    """A JSON object as the route returns it (the route documents its fields)."""

    model_config = ConfigDict(extra="allow")


class Text(BaseModel):
    """A document the route renders as text (markdown, a log)."""

    text: str = Field(description="the document")


class Page(BaseModel, Generic[T]):
    """One page of a list. Ask again with offset=next_offset for the next; next_offset is null at the end."""

    items: list[T] = Field(description="this page's items, in the route's order")
    offset: int = Field(description="where this page starts")
    next_offset: int | None = Field(description="the offset of the next page; null when this is the last")


def page(items: list[Any], offset: int, limit: int, more: bool) -> dict[str, Any]:
    return {"items": items, "offset": offset, "next_offset": offset + len(items) if more else None}
