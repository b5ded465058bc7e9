"""An entity's page from memory (graph/memory/entity_pages.py, moltbot-memory.md 6.2): each section's rule, the
summary's choice, the relations' direction, and the Markdown file the workspace export writes."""

from __future__ import annotations

import pytest

from grimoire.graph.memory import entity_pages as ep
from grimoire.graph.memory import workspace_files as wf
from grimoire.graph.memory.routing import Confidence, MemoryType, Store

AT = wf._parse_iso("2026-02-10T00:00:00Z") or 0
ENTITY = ep.EntityPageEntity(slug="project--moltbot", name="Moltbot", kind="project", ids=["project:moltbot"])


def mem(i: int, store: Store, text: str, day: str, confidence: Confidence = Confidence.high,
        tags: tuple[str, ...] = (), count: int = 1, base: float = 1.0) -> ep.PageMemory:
    at = wf._parse_iso(f"{day}T10:00:00Z") or 0
    return ep.PageMemory(f"m{i}", store, MemoryType.fact, confidence, tags, text,
                         wf.Decay(store, base, at, at, count, store is Store.vault))


MEMORIES = [
    mem(1, Store.semantic, "Moltbot uses   Neo4j\nfor its graph.", "2026-02-03"),
    mem(2, Store.episodic, "We launched the Moltbot beta.", "2026-02-05"),
    mem(3, Store.semantic, "Moltbot is written in Python.", "2026-02-01", count=7),
    mem(4, Store.episodic, "Started the Moltbot design doc", "2026-01-20"),
    mem(5, Store.semantic, "Should Moltbot cap the reflection budget?", "2026-02-04"),
    mem(6, Store.semantic, "Moltbot might need Redis.", "2026-02-06", confidence=Confidence.low),
    mem(7, Store.episodic, "Moltbot decay half-life", "2026-02-07", tags=("open-question",)),
    mem(8, Store.semantic, "The Moltbot deploy target is still undecided.", "2026-02-08"),
    mem(9, Store.vault, "The Moltbot root password is hunter2.", "2026-02-02"),
    mem(10, Store.procedural, "How to deploy Moltbot: test, ship.", "2026-02-02"),
]
LINKS = [
    ep.PageLink(ep.Direction.incoming, "develops", "person--alex", "Alex", "high", wf.day_ms("2026-01-15")),
    ep.PageLink(ep.Direction.outgoing, "uses", "tool--neo4j", "Neo4j", "high", wf.day_ms("2026-02-03")),
    ep.PageLink(ep.Direction.outgoing, "uses", "tool--neo4j", "Neo4j", "high", wf.day_ms("2026-01-30")),
]


def page() -> ep.EntityPage:
    built = ep.build("agent-a", ENTITY, list(reversed(MEMORIES)), LINKS, AT)
    assert built is not None
    return built


def test_each_section_follows_its_rule() -> None:
    p = page()
    assert [f.text for f in p.facts] == ["Moltbot is written in Python.", "Moltbot uses Neo4j for its graph."]
    assert [(t.day, t.text) for t in p.timeline] == [("2026-01-20", "Started the Moltbot design doc"),
                                                     ("2026-02-05", "We launched the Moltbot beta.")]
    assert [(q.memory_id, q.reason) for q in p.open_questions] == [
        ("m5", "a question"), ("m6", "low confidence"), ("m7", "tagged uncertain"), ("m8", "uncertain wording")]
    assert [(r.direction, r.relation, r.other, r.since) for r in p.relations] == [
        (ep.Direction.outgoing, "uses", "tool--neo4j", "2026-01-30"),   # one line per relation, its first day
        (ep.Direction.incoming, "develops", "person--alex", "2026-01-15")]
    # the vault and procedures have their own files: never on a page
    assert p.memories == 8 and "hunter2" not in p.markdown and "deploy Moltbot" not in p.markdown


def test_the_summary_quotes_the_most_relevant_settled_memories() -> None:
    p = page()
    # m3 was accessed 7 times (the highest score, uncapped), then m1 (a semantic memory decays slower than an
    # episode: section 9.1's type weights) before m2, said later; the open questions after every settled one
    assert p.summary_from == ["m3", "m1", "m2"]
    assert p.summary == ("Moltbot is written in Python. Moltbot uses Neo4j for its graph. "
                         "We launched the Moltbot beta.")
    only_open = ep.build("agent-a", ENTITY, [MEMORIES[4]], [], AT)
    assert only_open is not None and only_open.summary == "Should Moltbot cap the reflection budget?"


def test_the_markdown_is_the_spec_entity_file_and_parses_back() -> None:
    p = page()
    assert p.markdown == (
        "# project--moltbot\n"
        "<!-- Type: project | Created: 2026-01-20 | Last updated: 2026-02-08 -->\n"
        f"<!-- Decay score: {p.decay_score:.2f} | Access count: 14 | Pinned: no -->\n"
        "## Summary\n"
        "Moltbot is written in Python. Moltbot uses Neo4j for its graph. We launched the Moltbot beta.\n"
        "## Facts\n- Moltbot is written in Python.\n- Moltbot uses Neo4j for its graph.\n"
        "## Timeline\n- 2026-01-20: Started the Moltbot design doc\n- 2026-02-05: We launched the Moltbot beta.\n"
        "## Open Questions\n- Should Moltbot cap the reflection budget?\n- Moltbot might need Redis.\n"
        "- Moltbot decay half-life\n- The Moltbot deploy target is still undecided.\n"
        "## Relations\n- → uses [[tool--neo4j]]\n- ← develops [[person--alex]]\n")
    problems = wf.Problems()
    parsed = wf.parse_entity("memory/graph/entities/project--moltbot.md", "project--moltbot", p.markdown, problems)
    assert problems.found == []
    assert (parsed.created, parsed.updated, parsed.access_count, parsed.pinned) == ("2026-01-20", "2026-02-08", 14,
                                                                                    False)


def test_empty_sections_are_left_out_and_no_memory_is_no_page() -> None:
    one = ep.build("agent-a", ENTITY, [MEMORIES[1]], [], AT)
    assert one is not None
    assert one.markdown.split("-->\n")[-1] == "## Summary\nWe launched the Moltbot beta.\n## Timeline\n" \
                                               "- 2026-02-05: We launched the Moltbot beta.\n"
    assert ep.build("agent-a", ENTITY, [MEMORIES[8], MEMORIES[9]], LINKS, AT) is None
    assert ep.build("agent-a", ENTITY, [], LINKS, AT) is None


@pytest.mark.parametrize("text, confidence, tags, open_", [
    ("Is Moltbot ready?", Confidence.high, (), True),
    ('He asked "why Moltbot?" today', Confidence.high, (), True),
    ("Moltbot v2? no, v3.", Confidence.high, (), True),
    ("Moltbot probably ships in May.", Confidence.low, (), True),
    ("Moltbot is unclear on retries.", Confidence.high, (), True),
    ("Moltbot has TBD pricing.", Confidence.medium, (), True),
    ("Moltbot ships in May.", Confidence.medium, ("Uncertain",), True),
    ("Moltbot ships in May.", Confidence.medium, ("moltbot",), False),
    ("Moltbot's URL is https://x.io/?q=1", Confidence.high, (), False),
    ("Should Moltbot cap its queue.", Confidence.high, (), True),   # a summary that lost its "?"
    ("We shipped Moltbot. Which region comes next.", Confidence.high, (), True),
    ("Whoever ships Moltbot gets cake.", Confidence.high, (), False),
    ("Moltbot is what we build.", Confidence.high, (), False),
])
def test_the_open_question_rule(text: str, confidence: Confidence, tags: tuple[str, ...], open_: bool) -> None:
    m = ep.PageMemory("m", Store.semantic, MemoryType.fact, confidence, tags, text,
                      wf.Decay(Store.semantic, 1.0, AT, AT, 1, False))
    assert (ep.open_reason(m) is not None) is open_


def test_a_page_reads_the_memories_said_last() -> None:
    many = [mem(i, Store.episodic, f"Moltbot event {i}.", "2026-02-01") for i in range(ep.PAGE_MEMORIES + 5)]
    many = [ep.PageMemory(m.id, m.store, m.type, m.confidence, m.tags, m.text,
                          wf.Decay(m.store, 1.0, m.at + i, m.at + i, 1, False)) for i, m in enumerate(many)]
    p = ep.build("agent-a", ENTITY, many, [], AT)
    assert p is not None and p.memories == ep.PAGE_MEMORIES
    assert p.timeline[0].memory_id == "m5" and p.timeline[-1].memory_id == f"m{ep.PAGE_MEMORIES + 4}"
