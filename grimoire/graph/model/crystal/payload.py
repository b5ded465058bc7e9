"""A crystal's payload fields beside its text (knowledge-crystals.md, "Crystal Anatomy", lines 20-29): the
source it came from (MemorySource: memory, sessions or skills), the file and line range a writer that imports
from files knows, and the content hash that deduplicates before any embedding is compared.

Stored flat on the item as `memory_source`, `source_path`, `start_line`, `end_line` and `content_hash`: a memory
already has a `source` of its own (moltbot-memory.md section 5: conversation, reflection, user-explicit)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from grimoire.graph.model.common import StrictModel

MAX_LINE = 10_000_000   # a line number beyond any file a workspace holds
MAX_PATH = 1_000
_SPACE = re.compile(r"\s+")


class MemorySource(StrEnum):
    memory = "memory"       # what was remembered or learned (memories, entries, files imported)
    sessions = "sessions"   # what happened in a session (episodes)
    skills = "skills"       # a crystallized skill


Line = Annotated[int, Field(ge=1, le=MAX_LINE)]


class SourceFile(StrictModel):
    """Where in a file the content was read: a relative path, and its first and last line (1-based, inclusive)."""

    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH)]
    start_line: Line
    end_line: Line

    @model_validator(mode="after")
    def _ordered(self) -> SourceFile:
        if self.end_line < self.start_line:
            raise ValueError(f"end_line {self.end_line} is before start_line {self.start_line}")
        if self.path.startswith("/") or "\\" in self.path or any(p in ("", ".", "..") for p in self.path.split("/")):
            raise ValueError("path is relative to the workspace, with '/' between its parts and no '.' or '..'")
        return self


def normalise(text: str) -> str:
    """The content as hashed: Unicode NFC, every run of white space one space, trimmed. Case is kept ("US" and
    "us" are not the same memory)."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def content_hash(text: str) -> str:
    """sha-256 (hex) of the normalised content: equal for texts that differ only in white space or Unicode form."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


class Payload(BaseModel):
    """The payload properties an item is written with (unset ones are not stored)."""

    memory_source: MemorySource
    content_hash: str
    source_path: str | None = None
    start_line: int | None = None
    end_line: int | None = None


def payload(text: str, source: MemorySource, file: SourceFile | None = None) -> Payload:
    if file is None:
        return Payload(memory_source=source, content_hash=content_hash(text))
    return Payload(memory_source=source, content_hash=content_hash(text), source_path=file.path,
                   start_line=file.start_line, end_line=file.end_line)
