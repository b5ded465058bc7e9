"""Knowledge crystals' control-plane nodes, as neomodel classes on the service's driver (graph/db/ogm.py): an
agent's hormone levels (AgentHormones) and the network's cortisol override (NetworkWeather). Their constraints
are in cypher/schema/constraints.cypher."""

from __future__ import annotations

from neomodel import FloatProperty, IntegerProperty, StringProperty, StructuredNode


class AgentHormones(StructuredNode):  # type: ignore[misc]
    """An agent's dopamine, cortisol and oxytocin as they were at `valid_from` (they decay toward homeostasis from
    there: graph/model/crystal/hormones.py); replaced, with an audit record holding the levels before, on each event."""

    __label__ = "AgentHormones"
    uid = StringProperty(unique_index=True, required=True, db_property="id")   # <agent id>:hormones
    agent_id = StringProperty(index=True, required=True)
    dopamine = FloatProperty(required=True)
    cortisol = FloatProperty(required=True)
    oxytocin = FloatProperty(required=True)
    valid_from = IntegerProperty(required=True)     # when these levels held
    recorded_at = IntegerProperty(required=True)
    last_event = StringProperty()


class NetworkWeather(StructuredNode):  # type: ignore[misc]
    """The network cortisol override (knowledge-crystals.md, "Network Cortisol Override"): one node; while now is
    before `valid_until`, every agent's effective cortisol is at least `level` and ingestion from agents below
    the trusted level is halted."""

    __label__ = "NetworkWeather"
    uid = StringProperty(unique_index=True, required=True, db_property="id")   # always "network"
    level = FloatProperty(required=True)
    reason = StringProperty(required=True)
    valid_from = IntegerProperty(required=True)
    valid_until = IntegerProperty(required=True)
    recorded_at = IntegerProperty(required=True)
    set_by = StringProperty()
