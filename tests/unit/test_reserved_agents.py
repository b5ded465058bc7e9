"""The service's own writers are not agents anyone registers: the mental models' `grimoire`, the co-occurrence
inference's `co-occurrence` (its shared facts' owner) and the background actors `system:<job>`."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from grimoire.graph.agents import RESERVED_IDS, AgentIn
from grimoire.graph.knowledge.mental_models import SYSTEM_AGENT
from grimoire.graph.topology.inference import ACTOR


@pytest.mark.parametrize("agent_id", ["grimoire", "co-occurrence", "system:decay", "system:anything"])
def test_a_reserved_id_is_refused(agent_id: str) -> None:
    with pytest.raises(ValidationError, match="reserved"):
        AgentIn(id=agent_id, name="x", clade="c")


def test_the_reserved_ids_are_the_writers_own() -> None:
    assert {SYSTEM_AGENT, ACTOR} <= RESERVED_IDS
    assert AgentIn(id="grimoire-fan", name="x", clade="c").id == "grimoire-fan"
