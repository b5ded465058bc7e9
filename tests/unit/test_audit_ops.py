"""The revert operations' relationship types cover every fact predicate (graph/model/enums.py)."""

from grimoire.graph.audit.revert import FACT_TYPES, RelationshipType
from grimoire.graph.model.enums import REL_TYPES


def test_every_fact_type_is_a_revertable_relationship_type() -> None:
    assert {t.value for t in FACT_TYPES} == set(REL_TYPES.values())
    assert {"CAUSES", "SCORED", "MENTIONS", "DERIVED_FROM", "DECIDED"} <= {t.value for t in RelationshipType}
