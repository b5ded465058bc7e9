"""Retention's arithmetic (graph/audit/retention.py): whole months only, across a year's end; a digest's counts and
its lines in 12.6's format; a reflection's outcome read from its record."""

from __future__ import annotations

from datetime import UTC, datetime

from grimoire.graph.audit import retention


def ms(*args: int) -> int:
    return int(datetime(*args, tzinfo=UTC).timestamp() * 1000)


def test_whole_months_before_the_window_across_a_year_end() -> None:
    spans = list(retention.months(ms(2025, 11, 20, 8), ms(2026, 2, 10)))
    assert spans == [(ms(2025, 11, 1), ms(2025, 12, 1)), (ms(2025, 12, 1), ms(2026, 1, 1)),
                     (ms(2026, 1, 1), ms(2026, 2, 1))]  # February is not whole yet: left for later
    assert list(retention.months(ms(2026, 1, 5), ms(2026, 1, 31))) == []
    assert retention.month_key(ms(2025, 12, 31, 23, 59)) == "2025-12"
    assert retention.next_month(ms(2025, 12, 9)) == ms(2026, 1, 1)


def test_a_reflections_outcome_is_read_from_its_record() -> None:
    assert retention.reflection_outcome("reflection #3 approve: 4 of 4 proposals applied") == "approved"
    assert retention.reflection_outcome("reflection #3 approve: 3 of 4 proposals applied") == "partial"
    assert retention.reflection_outcome("reflection #4 approve_part: 1 of 4 proposals applied") == "partial"


def test_a_digest_counts_and_writes_the_spec_format() -> None:
    d = retention.Digest("a", ms(2026, 1, 1), ms(2026, 2, 1))
    critical = {"a:core:identity"}
    records = [
        {"at": ms(2026, 1, 3), "action": "memory.remember", "verb": "CREATE", "target_ids": [f"m{i}" for i in range(6)],
         "summary": "remembered 6 memories"},
        {"at": ms(2026, 1, 4), "action": "memory.core.edit", "verb": "EDIT", "target_ids": ["a:core:identity"],
         "summary": "identity rewritten"},
        {"at": ms(2026, 1, 4), "action": "alert.raise", "verb": "ALERT", "target_ids": ["a:core:identity", "al1"],
         "summary": "Critical item changed"},
        {"at": ms(2026, 1, 9), "action": "memory.reflection.decide", "verb": "COMMIT", "target_ids": ["r1"],
         "summary": "reflection #1 approve: 2 of 3 proposals applied"},
        {"at": ms(2026, 1, 10), "action": "memory.reflection.reject", "verb": "REJECT", "target_ids": ["r2"],
         "summary": "reflection #2 reject: 0 of 2 proposals applied"},
        {"at": ms(2026, 1, 11), "action": "memory.archive", "verb": "ARCHIVE", "target_ids": ["m1"], "summary": "x"},
        {"at": ms(2026, 1, 12), "action": "curator.decay", "verb": "DECAY", "target_ids": ["m2", "m3"], "summary": "y"},
    ]
    for r in records:
        d.add(r, critical)
    assert (d.mutations, len(d.items), d.critical) == (7, 10, 1)
    lines = d.markdown().splitlines()
    assert lines[:7] == ["# Audit Digest — January 2026", "## Summary", "- 7 total mutations across 10 files",
                         "- 2 reflection sessions (0 approved, 1 partial, 1 rejected)", "- 1 critical file changes",
                         "- 1 decay transitions, 1 archival events", "## Notable Events"]
    assert lines[7:] == ["- 2026-01-03: 6 new items", "- 2026-01-04: critical change: identity rewritten",
                         "- 2026-01-04: alert: Critical item changed",
                         "- 2026-01-09: reflection partial: reflection #1 approve: 2 of 3 proposals applied",
                         "- 2026-01-10: reflection rejected: reflection #2 reject: 0 of 2 proposals applied"]
    assert retention.Digest(None, ms(2026, 1, 1), ms(2026, 2, 1)).id == "_service:2026-01"
