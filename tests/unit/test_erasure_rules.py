"""The erasure's pure rules (graph/audit/erasure.py): what a redaction keeps of a text, of JSON, of a core block's
lines and of an audit record; and the rollback's plan never restoring an erased item (graph/audit/rollback.py)."""

from __future__ import annotations

import json

from grimoire.graph.audit import revert as rv
from grimoire.graph.audit.erasure import Erased, Erasure, redacted_props
from grimoire.graph.audit.rollback import Chosen, UndoableRecord, plan

AT = 1_795_780_000_000  # in November 2026
E = Erasure(id="erasure-1", agent_id="a", actor="key-1", at=AT, ids=["mem-1"], entities=["concept:0xabc1"],
            texts=["My wallet is 0xabc1.", "Remember that my wallet is 0xabc1", "concept:0xabc1"],
            words=["0xabc1"], lines=["- Wallet: 0xabc1"], hashes={"mem-1": "h1"})


def test_the_mark_says_when_and_by_whom() -> None:
    assert E.mark.startswith("[erased 2026-") and E.mark.endswith(" by key-1]")
    assert E.scrub('user said "Remember that my wallet is 0xabc1"') == f'user said "{E.mark}"'


def test_a_word_goes_only_where_it_stands_whole() -> None:
    assert E.scrub("0xabc12 stays, 0XABC1 goes") == f"0xabc12 stays, {E.mark} goes"


def test_the_lines_that_hold_it_go_whole_and_the_others_stay() -> None:
    block = "- Name: Alex\n- Wallet: 0xabc1\n- Risk: low\n- keys near 0xabc1 too"
    assert E.scrub(block) == "- Name: Alex\n- Risk: low"


def test_json_is_walked_value_by_value() -> None:
    revert = json.dumps([{"op": "set_properties", "label": "CoreBlock", "id": "a:core:critical",
                          "before": {"content": "- Name: Alex\n- Wallet: 0xabc1"}},
                         {"op": "undo_remember", "creators_added": ["concept:0xabc1"]}])
    out = json.loads(E.scrub(revert))
    assert out[0]["before"]["content"] == "- Name: Alex" and out[1]["creators_added"] == [E.mark]
    assert E.scrub('{"not": "touched"}') == '{"not": "touched"}'  # unchanged JSON is left byte for byte


def test_a_record_naming_an_erased_item_loses_its_text_and_keeps_its_skeleton() -> None:
    record = {"id": "r1", "actor": "key-9", "action": "memory.remember", "verb": "CREATE", "target_ids": ["mem-1"],
              "trigger": 'user said "Remember that…"', "summary": "remembered 1 memory", "revert": "[]"}
    props = redacted_props("AuditRecord", record, E)
    assert props["trigger"] == props["summary"] == E.mark
    assert not {"id", "actor", "action", "verb", "target_ids", "revert"} & set(props) - {"redaction"}
    stamp = json.loads(props["redaction"])
    assert stamp == [{"redacted": True, "erased_at": stamp[0]["erased_at"], "erased_by": "key-1",
                      "erasure": "erasure-1", "items": ["mem-1"], "sha256": {"mem-1": "h1"},
                      "fields": ["summary", "trigger"]}]
    again = redacted_props("AuditRecord", {**record, "trigger": "0xabc1", "redaction": props["redaction"]}, E)
    assert len(json.loads(again["redaction"])) == 2  # one stamp per erasure
    assert redacted_props("AuditRecord", {**record, "target_ids": ["mem-2"], "trigger": "other"}, E) == {}


def test_a_rollback_plan_never_restores_an_erased_item() -> None:
    erased = {"mem-1": Erased(id="mem-1", erased_at="2026-11-17T10:00Z", erased_by="key-1", erasure="erasure-1")}
    ops = [rv.RestoreMemories(agent_id="a", ids=["mem-1", "mem-2"]),
           rv.SetProperties(label=rv.NodeLabel.Memory, id="mem-1", before={"text": "x"}),
           rv.RestoreImage(nodes=[rv.NodeImage(label=rv.NodeLabel.Memory, id=i, labels=["Memory"], properties={})
                                  for i in ("mem-1", "mem-3")])]
    record = UndoableRecord(id="r1", at=1, actor="key-1", action="memory.archive", revert=rv.dump_revert(ops))
    erasure = UndoableRecord(id="r2", at=2, actor="key-1", action="memory.delete", target_ids=["mem-1"],
                             revert=rv.dump_revert([rv.Noop(reason="erased")]))
    p = plan(Chosen([erasure, record]), erased)
    kept = [op for s in p.steps for op in s.ops]
    assert [op.items() for op in kept] == [["mem-2"], ["mem-3"]]
    assert [(x.id, x.records) for x in p.unrestored()] == [("mem-1", ["r1", "r2"])]
