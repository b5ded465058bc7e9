"""The Markdown workspace's files, parsed and rendered without a database (graph/memory/workspace_files.py): each
file of the example workspace (tests/data/workspace/) parses and renders back to itself, a hand-edited copy
parses to the same records, what the graph holds renders to the layout, and every malformed file is named
with its line."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from grimoire.graph.memory import memory_md
from grimoire.graph.memory import workspace as w
from grimoire.graph.memory import workspace_files as wf
from grimoire.graph.memory.routing import Confidence, MemoryType, Procedure, Store
from grimoire.graph.model.enums import MemoryRelation

DATA = Path(__file__).resolve().parents[1] / "data" / "workspace"
FILES = {str(p.relative_to(DATA)): p.read_text() for p in sorted(DATA.rglob("*")) if p.is_file()}
AT = wf._parse_iso("2026-02-02T16:00:00Z") or 0


def _round_trip(path: str, text: str) -> str:
    """The file parsed into its records and rendered from them."""
    p = wf.Problems()
    name = path.rsplit("/", 1)[-1].removesuffix(".md")
    if path == wf.MEMORY_MD:
        contents, pinned = memory_md.parse(text)
        out = memory_md.render(contents, pinned)
    elif path.startswith(wf.EPISODES):
        out = wf.render_episodes(name, wf.parse_episodes(path, name, text, p))
    elif path == wf.INDEX:
        out = wf.render_index(wf.parse_index(path, text, p))
    elif path == wf.RELATIONS:
        assert wf.parse_relations(path, text, p)
        out = wf.RELATIONS_MD
    elif path.startswith(wf.ENTITIES):
        out = wf.render_entity(wf.parse_entity(path, name, text, p))
    elif path.startswith(wf.PROCEDURES):
        out = wf.render_procedure(wf.parse_procedure(path, name, text, p))
    elif path.startswith(wf.VAULT):
        out = wf.render_vault(wf.parse_vault(path, name, text, p))
    else:
        decay = wf.parse_decay(path, text, p)
        out = wf.render_decay(decay.last_updated or 0, decay.entries)
    assert p.found == [], p.found
    return out


@pytest.mark.parametrize("path", sorted(FILES))
def test_each_example_file_renders_back_to_itself(path: str) -> None:
    assert _round_trip(path, FILES[path]) == FILES[path]


def test_the_example_holds_every_kind_of_file() -> None:
    assert {p.split("/")[1] if "/" in p else p for p in FILES} == {"MEMORY.md", "episodes", "graph", "procedures",
                                                                    "vault", "meta"}


def test_relations_md_is_the_vocabulary() -> None:
    named = wf.parse_relations(wf.RELATIONS, wf.RELATIONS_MD, wf.Problems())
    assert sorted(named) == sorted(MemoryRelation) and len(named) == len(set(named))


def test_the_example_parses_into_items_with_their_keys_names_and_links() -> None:
    ws = wf.parse_workspace(FILES)
    assert [e.key for e in ws.episodes] == ["episode:2026-01-25:14:30", "episode:2026-02-02:14:30",
                                            "episode:2026-02-02:15:45", "episode:2026-02-02:16:00"]
    planned = {p.key: p for p in w.plan(ws, "agent-a", "clade-a", AT)}
    assert set(planned) == set(json.loads(FILES[wf.DECAY])["entries"]) | {e.key for e in ws.index.edges}
    # entities are named by the label's words that spell their id; the label is kept
    project = planned["entity:project--moltbot-memory"]
    assert project.memory.classification.entities[0].canonical_id == "project:moltbot memory"
    assert project.props["workspace_label"] == "Moltbot Memory System"
    edge = planned["edge:project--moltbot-memory:uses:tool--openclaw"].memory
    assert [r.out() for r in edge.classification.relations] == [
        {"from": "project--moltbot-memory", "relation": "uses", "to": "tool--openclaw"}]
    assert edge.at == wf.day_ms("2026-01-15") and edge.classification.confidence is Confidence.high
    # the procedure is learned from the episode its first Learned From line names; the second is kept as text
    deploy = planned["procedure:how-to-deploy"]
    assert deploy.memory.learned_from == (planned["episode:2026-01-25:14:30"].memory.id,)
    assert deploy.props["workspace_learned"][1] == "Episode 2026-01-30 09:15 — refined after staging incident"
    assert w.missing_references(ws) == [wf._parse_iso("2026-01-30T09:15:00Z")]
    # decay inputs from decay-scores.json
    first = planned["episode:2026-02-02:14:30"]
    assert (first.props["access_count"], first.props["base_relevance"], first.memory.at) == (
        2, 1.0, wf._parse_iso("2026-02-02T14:30:00Z"))
    # ids depend on the agent and the key only: importing again writes nothing new
    again = {p.key: p.memory.id for p in w.plan(ws, "agent-a", "clade-a", AT + 1)}
    assert again == {k: p.memory.id for k, p in planned.items()}
    assert planned["vault:recovery-phrase"].memory.id != w.memory_id("agent-b", "vault:recovery-phrase")


@pytest.mark.parametrize(("slug", "label", "name"), [
    ("project--moltbot-memory", "Moltbot Memory System", "Moltbot Memory"),
    ("concept--oauth2-pkce", "OAuth2 PKCE Flow", "OAuth2 PKCE"),
    ("tool--openclaw", "OpenClaw/Moltbot", "OpenClaw"),
    ("person--alex", "Alex", "Alex"),
    ("concept--brainstorm-first", None, "brainstorm first"),
    ("tool--gh", "GitHub", "gh"),
])
def test_an_entity_is_named_by_the_labels_words_that_spell_its_id(slug: str, label: str | None, name: str) -> None:
    assert w.entity_name(slug, label) == name


def test_a_hand_edited_file_parses_to_the_same_records() -> None:
    """What the export normalises: blank lines, trailing spaces, padded cells, row order, JSON formatting."""
    p = wf.Problems()
    day = FILES["memory/episodes/2026-02-02.md"]
    assert wf.parse_episodes("e.md", "2026-02-02", day.replace("\n## ", "   \n\n## ") + "\n\n", p) == \
        wf.parse_episodes("e.md", "2026-02-02", day, p)
    index = FILES[wf.INDEX].replace(" | ", "   |   ").replace("| person", "|    person")
    assert [r.id for r in wf.parse_index(wf.INDEX, index, p).registry] == \
        [r.id for r in wf.parse_index(wf.INDEX, FILES[wf.INDEX], p).registry]
    compact = json.dumps(json.loads(FILES[wf.DECAY]))
    assert wf.parse_decay(wf.DECAY, compact, p).entries == wf.parse_decay(wf.DECAY, FILES[wf.DECAY], p).entries
    assert p.found == []


def test_a_minutes_second_entry_keeps_its_place() -> None:
    text = ("# 2026-02-02 — Episode Log\n## 09:00 | event | confidence:low | tags:[]\nFirst.\n"
            "## 09:00 | emotion | confidence:high | tags:[mood]\nSecond.\n")
    entries = wf.parse_episodes("e.md", "2026-02-02", text, wf.Problems())
    assert [e.key for e in entries] == ["episode:2026-02-02:09:00", "episode:2026-02-02:09:00#2"]
    assert entries[1].at == entries[0].at + 1 and entries[0].tags == ()
    assert wf.render_episodes("2026-02-02", entries) == text


BAD = [
    # (path, text, the problem named)
    ("memory/episodes/2026-02-02.md", "# 2026-02-02 — Episode Log\n## 14:30 | decision | confidence:high\nx\n",
     "memory/episodes/2026-02-02.md line 2: malformed header: 3 fields"),
    ("memory/episodes/2026-02-02.md", "# 2026-02-02\n## 25:00 | mood | confidence:high | tags:[a]\nx\n",
     "line 2: malformed header: the time is HH:MM (UTC), not '25:00'; the type is one of"),
    ("memory/episodes/2026-02-02.md", "# 2026-02-02\n## 14:30 | event | confidence:high | tags:[a,,b]\nx\n",
     "line 2: malformed header: the tags read tags:[a, b]"),
    ("memory/episodes/2026-02-02.md", "# 2026-02-02\n## 14:30 | event | confidence:high | tags:[a]\n",
     "line 2: the entry has no text"),
    ("memory/episodes/2026-02-02.md", "# 2026-02-03 — Episode Log\n", "line 1: the title's day 2026-02-03"),
    ("memory/episodes/2026-02-02.md", "Loose text\n## 14:30 | event | confidence:high | tags:[a]\nx\n",
     "line 1: a line before the first entry"),
    ("memory/episodes/2026-02-30.md", "# x\n", "an episode log is named by its day"),
    ("memory/graph/entities/Person--Alex.md", "# x\n", "an entity file is named <kind>--<name>.md"),
    ("memory/graph/entities/person--alex.md", "# person--bob\nText.\n",
     "line 1: the title is the entity's id, '# person--alex'"),
    ("memory/graph/entities/person--alex.md", "# person--alex\n<!-- Type: tool | Mood: fine -->\nText.\n",
     "line 2: unknown header field 'Mood'"),
    ("memory/graph/entities/person--alex.md", "# person--alex\n<!-- Pinned: maybe | Access count: x -->\nText.\n",
     "line 2: Pinned is yes or no"),
    ("memory/graph/index.md", "# Index\n## Entity Registry\n| ID | Type |\n", "line 3: the table's columns are"),
    ("memory/graph/index.md", "# Index\n## Nodes\n", "line 2: unknown section 'Nodes'"),
    ("memory/graph/relations.md", "- `inspired-by` — influence\n", "line 1: unknown relation 'inspired-by'"),
    ("memory/procedures/deploy.md", "# deploy.md\n## Trigger\nShip.\n## Steps\n- Test\n",
     "line 5: a step reads 'N. text'"),
    ("memory/procedures/deploy.md", "# deploy.md\n## Steps\n1. Test\n", "a procedure has a '## Trigger'"),
    ("memory/procedures/deploy.md", "# deploy.md\n## Trigger\nShip.\n## Steps\n1. Test\n## Caveats\n- x\n",
     "line 6: unknown section 'Caveats'"),
    ("memory/procedures/my deploy.md", "# x\n", "a procedure file's name is letters, digits"),
    ("memory/vault/key.md", "# key\n", "line 1: the vault file has no text"),
    ("memory/meta/decay-scores.json", '{"entries": {"vault:nope": {"store": "vault"}}}',
     "line 1: vault:nope: no 'base_relevance'"),
    ("memory/meta/decay-scores.json", '{"entries": {\n"episode:2026-02-02:14:30": {"store": "semantic", '
     '"base_relevance": 2, "created": "then", "last_accessed": "2026-02-02T16:00:00Z", "access_count": -1, '
     '"pinned": "no"}}}', "line 2: episode:2026-02-02:14:30: base_relevance is a number from 0 to 1"),
    ("memory/meta/decay-scores.json", "[]", "line 1: the file is {"),
    ("../MEMORY.md", "x", "../MEMORY.md: a path is relative"),
    ("memory/episodes/2026-02-02.txt", "x", "not a file of the workspace's layout"),
]


@pytest.mark.parametrize(("path", "text", "named"), BAD, ids=[f"{b[0]}:{b[2][:30]}" for b in BAD])
def test_a_malformed_file_is_named_with_its_line(path: str, text: str, named: str) -> None:
    with pytest.raises(wf.WorkspaceInvalid) as refused:
        wf.parse_workspace({path: text})
    assert any(named in problem for problem in refused.value.problems), refused.value.problems
    assert str(refused.value).startswith("the workspace was not imported (nothing was written): ")


def test_the_files_must_agree_with_each_other() -> None:
    files = dict(FILES)
    files[wf.DECAY] = FILES[wf.DECAY].replace('"access_count": 14', '"access_count": 15')
    del files["memory/graph/entities/tool--openclaw.md"]
    files["memory/graph/entities/place--berlin.md"] = "# place--berlin\nA city.\n"
    with pytest.raises(wf.WorkspaceInvalid) as refused:
        wf.parse_workspace(files)
    assert refused.value.problems == [
        "memory/graph/index.md line 9: the workspace has no memory/graph/entities/tool--openclaw.md for tool--openclaw",
        "memory/graph/entities/place--berlin.md line 1: no row for place--berlin in memory/graph/index.md's "
        "Entity Registry",
        "memory/meta/decay-scores.json line 38: entity:tool--openclaw names no item of the workspace (keys: "
        "episode:YYYY-MM-DD:HH:MM, entity:<id>, procedure:<name>, vault:<name>)",
        "memory/graph/entities/project--moltbot-memory.md line 3: Access count 14 disagrees with "
        "memory/meta/decay-scores.json's entity:project--moltbot-memory (15)",
    ]


def test_known_files_the_graph_keeps_otherwise_are_skipped() -> None:
    ws = wf.parse_workspace({"memory/meta/evolution.md": "# Evolution\n", "memory/meta/audit.log": "x\n",
                            ".audit/config": "[core]\n"})
    assert set(ws.skipped) == {"memory/meta/evolution.md", "memory/meta/audit.log", ".audit/config"}


def _stored(store: Store, text: str, at: str, **kw: object) -> w.Stored:
    created = wf._parse_iso(at) or 0
    decay = wf.Decay(store, 1.0, created, created, 1, store is Store.vault)
    return w.Stored(f"m-{at}", store, MemoryType.fact, Confidence.high, (), text, decay, **kw)  # type: ignore[arg-type]


def test_what_messages_wrote_renders_where_the_layout_has_a_place() -> None:
    alex = w.EntityRef("person--alex", "Person", "Alex")
    project = w.EntityRef("project--moltbot-memory", "Project", "Moltbot memory")
    snapshot = w.Snapshot("# MEMORY.md — Core Memory\n", (
        _stored(Store.episodic, "We fixed the CSS bug.", "2026-02-02T10:00:00Z"),
        _stored(Store.semantic, "I develop the Moltbot memory project.", "2026-02-02T10:01:00Z",
                entities=(project, alex), subjects=("person--alex",)),
        _stored(Store.procedural, "x", "2026-02-02T10:02:00Z",
                procedure=Procedure("When I ask you to deploy", ("Run the tests", "Ship")),
                learned_from=((wf._parse_iso("2026-02-02T10:00:00Z") or 0, "We fixed the CSS bug."),)),
        _stored(Store.vault, "The recovery phrase lives in the blue notebook.", "2026-02-02T10:03:00Z"),
        _stored(Store.semantic, "Nothing named here.", "2026-02-02T10:04:00Z"),
    ), (wf.EdgeRow("person--alex", MemoryRelation.develops, "project--moltbot-memory", Confidence.high,
                  "2026-02-02", "2026-02-02"),))
    files = w.render_workspace(snapshot, AT)
    assert files["memory/graph/entities/person--alex.md"] == (
        "# person--alex\n<!-- Type: person | Created: 2026-02-02 | Last updated: 2026-02-02 -->\n"
        "<!-- Decay score: 1.00 | Access count: 1 | Pinned: no -->\n## Summary\nI develop the Moltbot memory project.\n"
        "## Facts\n- I develop the Moltbot memory project.\n## Relations\n- → develops [[project--moltbot-memory]]\n")
    # every entity a message named has its page generated from memory: the project too (its relation incoming)
    assert files["memory/graph/entities/project--moltbot-memory.md"].endswith(
        "## Relations\n- ← develops [[person--alex]]\n")
    assert "| person--alex | person | Alex | entities/person--alex.md | 1.00 |" in files[wf.INDEX]
    assert files["memory/procedures/when-i-ask-you-to-deploy.md"].endswith(
        "## Steps\n1. Run the tests\n2. Ship\n## Learned From\n- Episode 2026-02-02 10:00 — We fixed the CSS bug.\n")
    assert "memory/vault/the-recovery-phrase-lives-in-the.md" in files
    assert set(json.loads(files[wf.DECAY])["entries"]) == {
        "episode:2026-02-02:10:00", "entity:person--alex", "entity:project--moltbot-memory",
        "procedure:when-i-ask-you-to-deploy",
        "vault:the-recovery-phrase-lives-in-the"}
    # and it is a valid workspace
    assert len(w.plan(wf.parse_workspace(files), "agent-b", None, AT)) == 6


def test_facts_join_an_entity_files_facts_section() -> None:
    body = "## Summary\nS.\n## Facts\n- Old\n## Relations\n- x"
    assert w._with_facts(body, ["New", "Old"]) == "## Summary\nS.\n## Facts\n- Old\n- New\n## Relations\n- x"
    assert w._with_facts("## Summary\nS.", ["New"]) == "## Summary\nS.\n## Facts\n- New"


def test_the_zip_is_the_files() -> None:
    blob = w.zipped(FILES, AT)
    assert blob == w.zipped(dict(reversed(list(FILES.items()))), AT)
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        assert {n: z.read(n).decode() for n in z.namelist()} == FILES


def test_the_critical_files_are_kept_as_written_and_exported_as_kept() -> None:
    """SOUL.md, IDENTITY.md, USER.md and TOOLS.md are files of the layout (section 12.1), kept verbatim for
    graph/memory/critical_files.py; any other top-level Markdown file is still refused."""
    given = {"SOUL.md": "# SOUL.md\n  Be honest.  \n\n", "IDENTITY.md": "", "USER.md": "- Alex\n", "TOOLS.md": "x"}
    ws = wf.parse_workspace({**FILES, **given})
    assert ws.critical == given
    assert wf.parse_workspace(FILES).critical == {}
    files = w.render_workspace(w.Snapshot("# MEMORY.md — Core Memory\n", (), (), critical=given), AT)
    assert {k: files[k] for k in given} == given
    with pytest.raises(wf.WorkspaceInvalid, match="NOTES.md: not a file of the workspace's layout"):
        wf.parse_workspace({"NOTES.md": "x"})
