"""The Aave loader asserts with the service's fact settings (settings.facts): a predicate taken out of
`multi_valued` closes the subject's active fact with another object when the loader asserts one, as the service's
own assertions would, instead of the loader keeping the default set of multi-valued predicates."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.model.enums import MULTI_VALUED_BY_DEFAULT, REL_TYPES, Predicate
from grimoire.graph.topology.freshness import FactConfig
from grimoire.loaders.aave.load import LoadReport, build_plan, load
from tests.conftest import DATA, Neo4jUnderTest, clean_database

CONTROL = Predicate.GovernanceControl


@pytest.fixture(scope="module")
def exclusive_control(session_db: Database, embedder: Embedder,
                      neo4j_server: Neo4jUnderTest) -> Iterator[tuple[Database, LoadReport]]:
    """The Aave world loaded under a service whose GRIMOIRE_FACTS leaves GovernanceControl out of multi_valued."""
    assert CONTROL in MULTI_VALUED_BY_DEFAULT  # the default this test departs from
    facts = FactConfig(multi_valued=[p for p in MULTI_VALUED_BY_DEFAULT if p != CONTROL])
    settings = neo4j_server.settings(facts=facts)
    clean_database(session_db)
    report = load(session_db, embedder, DATA, freshness=settings.facts, progress=lambda items, *_: items)
    yield session_db, report
    clean_database(session_db)


def test_a_predicate_left_out_of_multi_valued_closes_the_subjects_other_objects(
        exclusive_control: tuple[Database, LoadReport]) -> None:
    db, report = exclusive_control
    # The data: governance modules each controlling several contracts at once (the default keeps them all open).
    plan = build_plan(DATA)
    objects: dict[str, set[str]] = {}
    for f in plan.facts:
        if f.predicate is CONTROL and f.object:
            objects.setdefault(f.subject, set()).add(f.object)
    several = {s for s, objs in objects.items() if len(objs) > 1}
    assert len(several) >= 5, objects
    # Written under the setting: each such subject keeps one open GovernanceControl fact, the others closed.
    rows = {r["subject"]: r for r in db.rows("testing/facts_by_subject", type=REL_TYPES[CONTROL])}
    assert all(rows[s]["objects"] > 1 for s in several)
    assert max(r["open"] for r in rows.values()) == 1
    assert report.facts_created > 3_000  # the rest of the world loaded as ever
