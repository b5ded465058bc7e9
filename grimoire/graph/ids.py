"""Identifiers and clocks: UUIDv7 (time-ordered) ids and epoch milliseconds."""

from __future__ import annotations

import os
import time
import uuid
from datetime import UTC, datetime


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def iso(ms: int) -> str:
    """Epoch milliseconds as ISO 8601 in UTC (`2026-03-01T14:05:09Z`): how a time reads in a message."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def uuid7(at_ms: int | None = None) -> str:
    """RFC 9562 UUIDv7: 48-bit Unix milliseconds, version 7, 74 random bits."""
    ms = now_ms() if at_ms is None else at_ms
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))
