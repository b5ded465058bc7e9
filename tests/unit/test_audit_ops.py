"""The revert operations' relationship types cover every fact predicate (graph/model/enums.py)."""

from grimoire.graph.audit.revert import FACT_TYPES, RelationshipType
from grimoire.graph.model.enums import REL_TYPES


def test_every_fact_type_is_a_revertable_relationship_type() -> None:
    assert {t.value for t in FACT_TYPES} == set(REL_TYPES.values())
    assert {"CAUSES", "SCORED", "MENTIONS", "DERIVED_FROM", "DECIDED"} <= {t.value for t in RelationshipType}


def test_the_rollbacks_derived_work_is_the_enrichments() -> None:
    """graph/audit/rollback.py names the lazy enrichment's actor and action (it cannot import the module that writes
    through it): a rename there must follow here, or an enriched ingest's rollback is refused again."""
    from grimoire.graph import enrichment
    from grimoire.graph.audit.rollback import DERIVED

    assert DERIVED == [(enrichment.ACTOR, enrichment.ACTION)]
