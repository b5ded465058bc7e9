"""Reflexion's deterministic steps on an episode's snapshots (issue 39; grimoire.md, "Reflexion with On-Chain
Grounding", steps 1-2): the comparison of the state before and after, the invariants checked against it, what an
episode may declare (refused at the edge otherwise), and the safety_incident a violation records."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from grimoire.graph.episodes import episode_properties
from grimoire.graph.learning import reflexion
from grimoire.graph.learning.invariants import InvariantCategory, InvariantViolation, check, compare, describe
from grimoire.graph.model.episode import EpisodeIn, EpisodeOut
from grimoire.graph.model.state import MAX_STATE_KEYS, InvariantIn

PRE = {"balance:WETH": 10.0, "balance:USDC": 5_000.0, "pool:reserve0": 0.0}
POST = {"balance:WETH": 9.0, "balance:USDC": 7_000.0, "pool:reserve0": 3.0, "position:lp": 1.5}


def test_step_one_compares_each_value_before_and_after() -> None:
    got = {d.key: d for d in compare(PRE, POST)}
    assert list(got) == sorted(PRE.keys() | POST.keys())
    weth = got["balance:WETH"]
    assert (weth.pre, weth.post, weth.change) == (10.0, 9.0, -1.0)
    assert weth.change_bps == pytest.approx(-1_000.0)           # -10 % is -1,000 bps
    assert got["balance:USDC"].change_bps == pytest.approx(4_000.0)
    assert got["pool:reserve0"].change == 3.0 and got["pool:reserve0"].change_bps is None  # from zero: no ratio
    lp = got["position:lp"]
    assert (lp.pre, lp.post, lp.change, lp.change_bps) == (None, 1.5, None, None)  # only after
    assert compare(None, None) == []


def test_step_two_finds_every_broken_bound_and_nothing_when_they_hold() -> None:
    held = [InvariantIn(key="balance:WETH", min=5, max=20, max_change=2, max_change_bps=1_500),
            InvariantIn(key="balance:USDC", max_change_bps=5_000), InvariantIn(key="position:lp", max=2)]
    assert check(held, PRE, POST) == []
    broken = [InvariantIn(key="balance:WETH", min=9.5, max_change=0.5, max_change_bps=500),
              InvariantIn(key="balance:USDC", max=6_000),
              InvariantIn(key="pool:reserve0", max_change_bps=10_000)]
    got = check(broken, PRE, POST)
    assert [(v.key, v.category, v.bound, v.limit, v.actual) for v in got] == [
        ("balance:WETH", InvariantCategory.token_amount_bound, "min", 9.5, 9.0),
        ("balance:WETH", InvariantCategory.balance_change_limit, "max_change", 0.5, 1.0),
        ("balance:WETH", InvariantCategory.balance_change_limit, "max_change_bps", 500, pytest.approx(1_000.0)),
        ("balance:USDC", InvariantCategory.token_amount_bound, "max", 6_000, 7_000.0),
        ("pool:reserve0", InvariantCategory.balance_change_limit, "max_change_bps", 10_000, None),  # from zero
    ]


def test_a_bound_on_its_limit_holds() -> None:
    assert check([InvariantIn(key="balance:WETH", min=9, max=9, max_change=1, max_change_bps=1_000)], PRE, POST) == []


def test_a_value_missing_is_a_violation_not_a_pass() -> None:
    got = check([InvariantIn(key="gone", min=0), InvariantIn(key="position:lp", max_change=1)], PRE, POST)
    assert [(v.key, v.category, v.bound) for v in got] == [
        ("gone", InvariantCategory.token_amount_bound, "present"),
        ("position:lp", InvariantCategory.balance_change_limit, "present")]


def test_the_description_names_keys_and_numbers() -> None:
    text = describe([InvariantViolation(key="balance:WETH", category=InvariantCategory.token_amount_bound,
                                        bound="min", limit=9.5, actual=9.0),
                     InvariantViolation(key="balance:USDC", category=InvariantCategory.balance_change_limit,
                                        bound="max_change_bps", limit=500, actual=4_000)])
    assert text == ("balance:WETH is 9, below its minimum 9.5; "
                    "balance:USDC changed by 4000 bps, beyond its limit 500 bps")


def _episode(**kw: object) -> dict[str, object]:
    return {"type": "action", "text": "swap", **kw}


@pytest.mark.parametrize(("fields", "says"), [
    ({"invariants": [{"key": "a", "min": 1}]}, "need a post_state"),
    ({"post_state": {"a": 1}, "invariants": [{"key": "b", "min": 1}]}, "post_state has no such value"),
    ({"post_state": {"a": 1}, "invariants": [{"key": "a", "max_change": 1}]}, "pre_state has no such value"),
    ({"post_state": {"a": 1}, "invariants": [{"key": "a", "min": 1}, {"key": "a", "max": 2}]}, "two invariants"),
    ({"post_state": {"a": 1}, "invariants": [{"key": "a"}]}, "declares no bound"),
    ({"post_state": {"a": 1}, "invariants": [{"key": "a", "min": 2, "max": 1}]}, "min is above max"),
    ({"post_state": {"a": 1}, "invariants": [{"key": "a", "max_change": -1}]}, "greater than or equal to 0"),
    ({"post_state": {"a": float("inf")}}, "finite"),
    ({"post_state": {"": 1}}, "at least 1 character"),
    ({"post_state": {f"k{i}": 1 for i in range(MAX_STATE_KEYS + 1)}}, f"at most {MAX_STATE_KEYS}"),
    ({"post_state": {"a": "lots"}}, "valid number"),
])
def test_what_cannot_be_checked_is_refused_at_the_edge(fields: dict[str, object], says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        EpisodeIn.model_validate(_episode(**fields))


def test_snapshots_are_stored_as_json_and_read_back() -> None:
    ep = EpisodeIn.model_validate(_episode(id="ep-1", pre_state=PRE, post_state=POST,
                                           invariants=[{"key": "balance:WETH", "min": 5}]))
    props = episode_properties(ep, 1_000)
    assert json.loads(props["post_state"]) == POST and json.loads(props["pre_state"]) == PRE
    assert json.loads(props["invariants"]) == [{"key": "balance:WETH", "min": 5}]
    out = EpisodeOut.model_validate({"id": "ep-1", **props})
    assert out.post_state == POST and out.pre_state == PRE
    assert out.invariants is not None and out.invariants[0].min == 5 and out.invariants[0].max is None
    assert "post_state" not in episode_properties(EpisodeIn.model_validate(_episode(id="ep-2")), 1_000)


def _source(**kw: object) -> dict[str, object]:
    return {"id": "ep-9", "agent_id": "golem-1", "clade": "clade-a", "scope": "shared", "sensitivity": "normal",
            "tool": "uniswap-swap", "regime": "bull", "tick": 7, "token_pair": "WETH/USDC",
            "valid_from": 1_700_000_000_123, **kw}


def test_the_incident_keeps_the_sources_scope_and_is_an_emergency() -> None:
    violations = check([InvariantIn(key="balance:WETH", min=9.5)], PRE, POST)
    incident = reflexion._incident(_source(), violations, 2_000)
    assert (incident.id, incident.source_id) == ("safety-incident:ep-9", "ep-9")
    props = incident.props
    assert props["type"] == "safety_incident" and props["importance"] == "emergency" and props["confidence"] == 1.0
    assert (props["agent_id"], props["clade"], props["scope"]) == ("golem-1", "clade-a", "shared")
    assert props["source_episode_id"] == "ep-9" and props["outcome"] == "negative"
    assert props["valid_from"] == 1_700_000_000_123 and props["recorded_at"] == 2_000
    assert props["lifespan"] == "permanent" and (props["tool"], props["tick"]) == ("uniswap-swap", 7)
    assert props["text"] == ("Safety incident: 1 invariant violation(s) after episode ep-9 (uniswap-swap): "
                             "balance:WETH is 9, below its minimum 9.5.")


def test_a_confidential_sources_incident_stays_private_and_confidential() -> None:
    violations = check([InvariantIn(key="balance:WETH", min=9.5)], PRE, POST)
    # a confidential episode is stored private (graph/model/crystal/governance.py), its asked scope kept apart
    props = reflexion._incident(_source(scope="private", sensitivity="confidential", requested_scope="public"),
                                violations, 2_000).props
    assert props["scope"] == "private" and props["sensitivity"] == "confidential"
    assert reflexion._incident(_source(scope="private"), violations, 2_000).props["scope"] == "private"


def test_one_incident_id_per_source_and_long_ids_fit() -> None:
    assert reflexion._incident_id("ep-9") == "safety-incident:ep-9"
    long = "e" * 128
    got = reflexion._incident_id(long)
    assert len(got) <= 128 and got == reflexion._incident_id(long) and got != reflexion._incident_id("e" * 127 + "f")
    EpisodeIn.model_validate(_episode(id=got))  # a valid episode id


def test_the_stored_verdict_reads_its_json_back() -> None:
    deviations = compare(PRE, POST)
    violations = check([InvariantIn(key="balance:USDC", max=6_000)], PRE, POST)
    stored = reflexion.StoredReflection.model_validate({
        "id": "reflexion:ep-9", "episode_id": "ep-9", "verdict": None, "invariants_checked": 1,
        "state_deviations": json.dumps([d.model_dump(exclude_none=True) for d in deviations]),
        "violations": json.dumps([v.model_dump(mode="json", exclude_none=True) for v in violations]),
        "incident_id": "safety-incident:ep-9"})
    assert stored.state_deviations == deviations and stored.violations == violations
    empty = reflexion.StoredReflection.model_validate({"id": "r", "episode_id": "e", "verdict": "correct",
                                                       "state_deviations": None, "violations": None})
    assert empty.state_deviations == [] and empty.violations == [] and empty.incident_id is None


def test_snapshots_alone_give_nothing_to_check_without_them() -> None:
    assert reflexion._snapshots({"id": "e"}) == ([], None, [])
    deviations, checked, violations = reflexion._snapshots({
        "id": "e", "pre_state": json.dumps(PRE), "post_state": json.dumps(POST),
        "invariants": json.dumps([{"key": "balance:USDC", "max": 6_000}, {"key": "balance:WETH", "min": 1}])})
    assert deviations == compare(PRE, POST) and checked == 2
    assert [(v.key, v.bound) for v in violations] == [("balance:USDC", "max")]
