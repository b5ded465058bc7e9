"""The learning loop as the rest of the service sees it: outcomes that name a causal link move its evidence
once, through a Curator cycle; a subscriber to the event stream watches a cycle's events arrive while it
runs, and resumes after the last one it saw; the cognitive metrics of a scripted life are the values its
script implies.

Every expected value here is a literal derived, in the comments, from the script that precedes it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import Api
from tests.integration import test_events as streaming
from tests.integration.test_learning_life import AGENT, CLADE, Life, _entries_of, _one

live = streaming.live  # the app under uvicorn on a free port (test_events.py's fixture)
Subscriber = streaming.Subscriber

# ---------------------------------------------------------------- 1. the causal cross-reference


CAUSAL_AGENT, CAUSAL_CLADE = "golem-causal", "clade-causal"
CAUSE = "Aave WETH borrow utilisation above the 90% kink precedes a doubling of the variable borrow rate"
EFFECT = "The Aave WETH variable borrow rate doubles within 24 hours"  # a concrete claim: future utility 0.5
LINK = f"{CAUSAL_AGENT}:cx-util.causes.cx-rate"
STRANGER_LINK = "golem-stranger:sx-util.causes.sx-rate"


def _causal_episode(id_: str, outcome: str, link: str | None, tick: int) -> dict[str, Any]:
    ep = {"id": id_, "type": "observation", "tick": tick, "outcome": outcome, "tool": f"watch-{id_}",
          "text": f"{id_}: WETH utilisation passed 90% at tick {tick}; the borrow rate then moved ({outcome})"}
    return {**ep, "causal_link_id": link} if link else ep


def _linked(api: Api, h: dict[str, str], prefix: str) -> list[str]:
    """The caller's cause and effect entries and a link between them (weight 0.5, evidence 1, confidence 0.6)."""
    entries = [{"id": f"{prefix}-util", "category": "Insight", "content": CAUSE},
               {"id": f"{prefix}-rate", "category": "Insight", "content": EFFECT}]
    assert api.client.post("/entries/batch", headers=h, json={"entries": entries}).status_code == 201
    r = api.client.post("/causal/links", headers=h, json={"links": [
        {"cause": f"{prefix}-util", "effect": f"{prefix}-rate", "weight": 0.5, "evidence": 1, "confidence": 0.6}]})
    assert r.status_code == 201, r.text
    return list(r.json()["created"])


def _causal_life(api: Api) -> dict[str, str]:
    """golem-causal's link (weight 0.5, evidence 1, confidence 0.6) and four outcomes that name it; another
    agent's link, which one more outcome of golem-causal names; and an outcome that names no link."""
    h = api.headers(CAUSAL_AGENT, CAUSAL_CLADE)
    assert _linked(api, h, "cx") == [LINK]
    assert _linked(api, api.headers("golem-stranger", "clade-stranger"), "sx") == [STRANGER_LINK]

    episodes = [_causal_episode("cx-1", "positive", LINK, 1),
                _causal_episode("cx-2", "negative", LINK, 2),
                _causal_episode("cx-3", "positive", LINK, 3),
                _causal_episode("cx-4", "neutral", LINK, 4),             # neither confirms nor contradicts
                _causal_episode("cx-5", "positive", STRANGER_LINK, 5),   # not a link golem-causal may update
                _causal_episode("cx-6", "positive", None, 6)]            # names no link
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": episodes})
    assert r.status_code == 201, r.text
    return h


def _link(db, link_id: str) -> dict[str, Any]:
    [row] = db.fetch("testing/causal_link", id=link_id)
    return dict(row)


def _run_cycle(api: Api, h: dict[str, str]) -> dict[str, Any]:
    r = api.client.post("/curator/cycles", headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_cycle_adds_the_evidence_of_outcomes_that_name_a_causal_link_once(api: Api, db) -> None:
    h = _causal_life(api)
    assert _link(db, LINK) == {"weight": 0.5, "evidence": 1, "confidence": 0.6, "confirmed_count": None,
                               "contradicted_count": None}
    first = _run_cycle(api, h)
    assert first["status"] == "complete"
    # cx-1, cx-2 and cx-3 each add one piece of evidence, in the order they were recorded (recorded_at, id);
    # cx-4 is neutral and cx-5's link is not golem-causal's to update (cypher/causal/record_outcome.cypher):
    #   weight: a running mean of the confirmations, (0.5 x 1 + 1 + 0 + 1) / (1 + 3) = 0.625
    #   confidence: 0.6 + 0.1 (cx-1 confirms) - 0.15 (cx-2 contradicts) + 0.1 (cx-3 confirms) = 0.65
    link = _link(db, LINK)
    assert link["evidence"] == 4 and link["weight"] == pytest.approx(0.625)
    assert link["confidence"] == pytest.approx(0.65)
    assert (link["confirmed_count"], link["contradicted_count"]) == (2, 1)
    assert first["cycle"]["decay_causal"] == 3
    assert _link(db, STRANGER_LINK) == {"weight": 0.5, "evidence": 1, "confidence": 0.6, "confirmed_count": None,
                                        "contradicted_count": None}
    # The three outcomes are counted in one transaction: one audit record (the link's earlier values, to revert).
    assert db.fetch("testing/audit_actions")[0]["actions"].count("curator.causal") == 1

    # Nothing new: the cycle does nothing, and the link stays.
    again = _run_cycle(api, h)
    assert again["status"] == "up_to_date" and again["cycle"]["id"] == first["cycle"]["id"]
    assert _link(db, LINK) == link
    # Something new that names no link: a cycle runs, and outcomes already counted are not counted again.
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": [_causal_episode("cx-7", "positive", None, 7)]})
    assert r.status_code == 201, r.text
    later = _run_cycle(api, h)
    assert later["status"] == "complete" and later["cycle"]["seq"] == 2
    assert later["cycle"].get("decay_causal", 0) == 0
    assert _link(db, LINK) == link


def test_the_causal_cross_reference_is_read_back_with_the_cycle_operations(api: Api, db) -> None:
    h = _causal_life(api)
    cycle = _run_cycle(api, h)["cycle"]
    r = api.client.get(f"/curator/cycles/{cycle['id']}/operations", headers=h)
    assert r.status_code == 200, r.text
    causal = sorted((op for op in r.json() if op["op"] == "CAUSAL"), key=lambda op: op["seq"])
    # One per outcome counted, on the link, in the order counted, each one piece of evidence more.
    assert [op["episode_ids"] for op in causal] == [["cx-1"], ["cx-2"], ["cx-3"]]
    assert all(op["detail"]["link_id"] == LINK for op in causal)
    assert [op["detail"]["confirmed"] for op in causal] == [True, False, True]
    assert [(op["detail"]["before"]["evidence"], op["detail"]["after"]["evidence"]) for op in causal] == [
        (1, 2), (2, 3), (3, 4)]
    assert causal[-1]["detail"]["after"]["weight"] == pytest.approx(0.625)


# ---------------------------------------------------------------- 2. a cycle's events, streamed


def _listed(api: Api, headers: dict[str, str], **params: Any) -> list[dict[str, Any]]:
    r = api.client.get("/events", headers=headers, params=params)
    assert r.status_code == 200, r.text
    return list(r.json())


def _wait_for(condition: Callable[[], bool], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_subscriber_receives_a_cycle_s_events_while_it_runs_and_resumes_after_them(api: Api, live: Api) -> None:
    life = Life(api)
    life.episodes(range(1, 40), "uniswap-swap", "WETH/USDC", "bull", "++++")  # teaches a heuristic
    life.episodes(range(1, 40), "aave-supply", "USDC", "bull", "----")        # teaches a warning
    h = live.headers(AGENT, CLADE)
    time.sleep(0.01)  # the episodes' own GrimoireWrite events are older than the subscription
    # Cycle 1 writes 2 lessons and 2 summaries (4 GrimoireWrite), then GrimoireDecay and CuratorCycleComplete.
    sub = Subscriber(live, h, want=6, max_seconds=120).start_and_wait()

    during: list[dict[str, Any]] = []

    def after_phase(phase: str) -> None:
        """Inside the cycle, once DISTILL has admitted its lessons and summaries: the subscriber already
        has their GrimoireWrite events, and nothing of the cycle's end (not written yet)."""
        if phase == "distill":
            assert _wait_for(lambda: len(sub.frames) >= 4), sub.frames
            during.extend(sub.events())

    report = life.curator.run(AGENT, clade=CLADE, actor="test", on_phase=after_phase)
    assert report.status == "complete" and report.cycle is not None
    cycle = report.cycle
    got = sub.finish().events()

    ops = life.ops(cycle["id"])
    admitted = _entries_of(ops, "ADD") | _entries_of(ops, "COMPRESS")
    assert len(admitted) == 4 and None not in admitted
    assert [e["type"] for e in during] == ["GrimoireWrite"] * 4
    assert {e["payload"]["entry_id"] for e in during} == admitted
    assert got[:4] == during
    assert [e["type"] for e in got] == ["GrimoireWrite"] * 4 + ["GrimoireDecay", "CuratorCycleComplete"]
    assert [f["id"] for f in sub.frames] == [e["id"] for e in got] == sorted(e["id"] for e in got)
    assert [f["event"] for f in sub.frames] == [e["type"] for e in got]
    decayed, complete = got[4]["payload"], got[5]["payload"]
    # DECAY reviewed the 4 entries DISTILL wrote (minutes old: the mean confidence before and after agrees
    # with the cycle's own record of it).
    assert decayed == {"cycle_id": cycle["id"], "entries_reviewed": 4, "entries_decayed": cycle["decay_decayed"],
                       "avg_confidence_before": cycle["decay_before"], "avg_confidence_after": cycle["decay_after"]}
    assert cycle["decay_reviewed"] == 4
    # The counts of the cycle's report: 2 lessons added (1 heuristic), 2 summaries, the warning promoted.
    assert (report.counts["ADD"], report.counts["ADD:Heuristic"], report.counts["COMPRESS"],
            report.counts["PROMOTE"]) == (2, 1, 2, 1)
    assert complete == {"cycle_id": cycle["id"], "entries_pruned": 0, "entries_promoted": 1, "heuristics_proposed": 1,
                        "added": 2, "compressed": 2, "demoted": 0, "edited": 0, "trigger": "manual",
                        "reasoner": "rule-based", "reasoner_fallbacks": []}
    # What was streamed is what is listed: the episodes' two writes before the subscription, then these.
    listed = _listed(live, h)
    assert [e["payload"]["entry_type"] for e in listed[:2]] == ["episode", "episode"] and listed[2:] == got

    # Four more swaps while nobody listens, and a cycle over the API: they agree with the heuristic (an
    # UPVOTE, no new lesson) and compress into a second summary. A resume after the last id seen gets only
    # what came after it: the episodes' write, the summary's, cycle 2's GrimoireDecay and CuratorCycleComplete.
    life.episodes(range(51, 99), "uniswap-swap", "WETH/USDC", "bull", "++++")
    r = live.client.post("/curator/cycles", headers=h)
    assert r.status_code == 200 and r.json()["status"] == "complete", r.text
    second = r.json()["cycle"]
    [summary] = _entries_of(life.ops(second["id"]), "COMPRESS")
    missed = _listed(live, h, after=sub.frames[-1]["id"])
    resumed = Subscriber(live, {**h, "Last-Event-ID": sub.frames[-1]["id"]}, want=len(missed),
                         max_seconds=30).start_and_wait().finish()
    events = resumed.events()
    assert events == missed and not {e["id"] for e in events} & {e["id"] for e in listed}
    assert [e["type"] for e in events] == ["GrimoireWrite", "GrimoireWrite", "GrimoireDecay", "CuratorCycleComplete"]
    assert events[0]["payload"] == {"entry_type": "episode", "count": 4, "category": None, "source": "ingest"}
    assert events[1]["payload"]["entry_id"] == summary
    # Reviewed: the 4 entries of cycle 1 and the new summary.
    assert events[2]["payload"]["cycle_id"] == second["id"] and events[2]["payload"]["entries_reviewed"] == 5
    assert events[3]["payload"] == {**complete, "cycle_id": second["id"], "entries_promoted": 0,
                                    "heuristics_proposed": 0, "added": 0, "compressed": 1}


# ---------------------------------------------------------------- 3. the metrics of a scripted life

OWN_NOTE = "Chainlink ETH/USD heartbeat is 3600 seconds with a 0.5% deviation threshold on mainnet"


def _predictions(life: Life, first_tick: int, first_probe: int,
                 script: list[tuple[list[str], float, float, str]]) -> None:
    """One episode per prediction (informed_by, expected, actual, outcome), each with a tool of its own:
    no cluster to distil, and no run of misses on one tool for Reflexion to turn into an insight."""
    for i, (informed_by, expected, actual, outcome) in enumerate(script):
        tick = first_tick + i
        life.episodes(range(tick, tick + 1), f"probe-{first_probe + i}", "USDC/DAI", "bull", outcome,
                      prediction={"expected": expected, "actual": actual, "tolerance": 50,
                                  "informed_by": informed_by})


def test_the_metrics_of_a_scripted_life_are_the_values_its_script_implies(api: Api, db) -> None:
    life = Life(api)
    # The agent notes one fact, and the same fact twice more under other ids: admitted, then skipped twice
    # (exact twins of the first of the batch: its content hash, before any cosine).
    own = [{"id": f"own-{i}", "category": "Insight", "content": OWN_NOTE} for i in range(3)]
    r = api.client.post("/entries/batch", headers=life.h, json={"entries": own})
    assert r.status_code == 201 and [d["outcome"] for d in r.json()] == ["admitted", "skipped", "skipped"]
    # Ticks 1-28, a bull market: three clusters of four episodes (gains +10 per +, -8 per -).
    life.episodes(range(1, 40), "uniswap-swap", "WETH/USDC", "bull", "++++")
    life.episodes(range(1, 40), "curve-swap", "USDC/DAI", "bull", "++++")
    life.episodes(range(1, 40), "aave-supply", "USDC", "bull", "----")
    c1 = life.cycle(1)
    # Cycle 1 (tick 28): three lessons (heuristics h1, h2 and warning w, at 0.5) and three summaries pass the
    # gate; the warning alone is promoted (active at once).
    assert all(op["entry_id"] for op in c1["ADD"] + c1["COMPRESS"]) and len(c1["ADD"]) == len(c1["COMPRESS"]) == 3
    h1 = _one(c1, "ADD", lesson_key="uniswap-swap|1|WETH/USDC")["entry_id"]
    h2 = _one(c1, "ADD", lesson_key="curve-swap|1|USDC/DAI")["entry_id"]
    w = _one(c1, "ADD", lesson_key="aave-supply|1|USDC")["entry_id"]
    assert _entries_of(c1, "PROMOTE") == {w}

    # Ticks 50-53: four predictions, two informed by each heuristic, all within tolerance with good
    # outcomes: each heuristic nets two upvotes, 0.5 -> 0.7, and is promoted into the playbook in cycle 2.
    _predictions(life, 50, 0, [([h1], 20, 25, "+"), ([h1], 20, 10, "+"), ([h2], 30, 40, "+"), ([h2], 20, 30, "+")])
    c2 = life.cycle(2)
    assert [_one(c2, "NET", entry_id=x)["after_confidence"] for x in (h1, h2)] == [0.7, 0.7]
    assert _entries_of(c2, "PROMOTE") == {h1, h2}
    # Ticks 160-163: four predictions the wrong way, with bad outcomes; two were informed by h2, which nets
    # two downvotes (0.7 x 1.05^2 - 0.3 = 0.472), is validated down (x 0.9^2 = 0.382 < 0.4) and demoted.
    _predictions(life, 160, 4, [([h2], 20, -60, "-"), ([h2], 30, -40, "-"), ([], 10, -50, "-"), ([], 40, -20, "-")])
    c3 = life.cycle(3)
    assert _entries_of(c3, "DEMOTE") == {h2}

    r = api.client.get("/metrics", headers=life.h)
    assert r.status_code == 200, r.text
    got = {m["name"]: m for m in r.json()["metrics"]}
    # Admission rate: 9 decisions this week (3 of the agent's own notes, 3 lessons, 3 summaries), 7 passing
    # (the two duplicates were skipped): 7/9 = 0.778, outside 0.4-0.6 but inside 0.2-0.8: no alarm.
    assert got["admission_rate"]["detail"] == {"decisions": 9, "passing": 7}
    assert got["admission_rate"]["value"] == pytest.approx(7 / 9)
    assert (got["admission_rate"]["healthy"], got["admission_rate"]["alarm"]) == (False, False)
    # Prediction accuracy: 8 reflections, 4 correct (ticks 50-53): 0.5 < 0.8, the alarm.
    assert got["prediction_accuracy"]["detail"] == {"reflections": 8, "correct": 4}
    assert got["prediction_accuracy"]["value"] == 0.5
    assert (got["prediction_accuracy"]["healthy"], got["prediction_accuracy"]["alarm"]) == (False, True)
    # Heuristic survival: cycle 2 (tick 53) promoted h1 and h2, at least 100 ticks before the latest (163);
    # h1 is still active, h2 was demoted: 1 of 2 = 0.5, inside 40-70%.
    assert got["heuristic_survival"]["detail"] == {"promoted": 2, "surviving": 1, "latest_tick": 163}
    assert got["heuristic_survival"]["value"] == 0.5
    assert (got["heuristic_survival"]["healthy"], got["heuristic_survival"]["alarm"]) == (True, False)
    # Grimoire size: the active entries are w and h1 (h2 was demoted; the three summaries, admitted under 0.6,
    # and the agent's note at 0.5 are candidate insights). No sample 7 days ago: not judged.
    assert got["grimoire_size"]["value"] == 2
    assert (got["grimoire_size"]["healthy"], got["grimoire_size"]["alarm"]) == (None, False)
    # The PnL over 30 days: 8 x +10 and 4 x -8 in cycle 1's episodes, 4 x +10, then 4 x -8: 56; the largest
    # fall below a peak is 32 (80 -> 48 with the Aave supplies, 88 -> 56 at the end). No history: not judged.
    trend = got["external_metric_trend"]
    assert trend["value"] == 56 and trend["detail"] == {"episodes": 20, "max_drawdown": 32}
    assert (trend["healthy"], trend["alarm"]) == (None, False)
    # Average quality: the mean of the quality scores stored on the 7 entries written this week (3 lessons,
    # 3 summaries, own-0; the skipped duplicates wrote none).
    written = [h1, h2, w, *_entries_of(c1, "COMPRESS"), "own-0"]
    quality = [life.entry(x)["quality_score"] for x in written]
    assert got["average_quality_7d"]["detail"] == {"entries": 7}
    assert got["average_quality_7d"]["value"] == pytest.approx(sum(quality) / 7)
    # Nothing to judge: no retrieval for a decision, and no two Reflexion verdicts on one series to compare (the
    # metric has its input now: null for want of data, not for want of a source).
    assert got["retrieval_hit_rate"]["value"] is None and got["retrieval_hit_rate"]["alarm"] is False
    consistency = got["reflection_consistency"]
    assert consistency["value"] is None and consistency["alarm"] is False and not consistency["no_input"]
    # the life's warnings were never read or retrieved: threat coverage below the spec's 100% alarms too
    assert got["threat_coverage"]["value"] < 1.0
    assert r.json()["alarms"] == ["threat_coverage", "prediction_accuracy"]


# ---------------------------------------------------------------- 4. requests first


def test_the_learning_a_request_does_itself_never_waits_for_requests(api: Api, db) -> None:
    """Reflexion runs inside the ingest that brings a verified prediction, on the Curator's paced
    database (graph/foreground.py): that request is in flight, and must not wait for itself."""
    from tests.conftest import counts

    life = Life(api)
    foreground = api.client.app.state.services.foreground
    _predictions(life, 1, 0, [([], 20, 25, "+"), ([], 20, -40, "-")])
    assert counts(db)["Reflection"] == 2
    assert foreground.waited_seconds == 0 and foreground.in_flight == 0
