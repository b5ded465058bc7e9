"""The trail's control-plane nodes, as neomodel classes on the service's driver (graph/db/ogm.py): an Alert
per critical change that needs a person's eyes (graph/audit/alerts.py). Their constraints and indexes are in
cypher/schema/ under the names neomodel's install_labels gives them. neomodel reserves `id`: the attribute
`uid` is the property `id`."""

from __future__ import annotations

from neomodel import IntegerProperty, StringProperty, StructuredNode


class Alert(StructuredNode):  # type: ignore[misc]
    """A critical item changed by someone who may not change it unseen, or outside the service (12.5)."""

    __label__ = "Alert"
    uid = StringProperty(unique_index=True, required=True, db_property="id")
    agent_id = StringProperty(index=True, required=True)
    item = StringProperty(index=True, required=True)     # the critical item's id
    kind = StringProperty(required=True)                 # unauthorized-change, checksum-mismatch
    summary = StringProperty(required=True)
    change_id = StringProperty()                         # the audit record of the change, when the service made it
    observed = StringProperty()                          # a mismatch: the checksum found
    at = IntegerProperty(required=True)
    acknowledged_at = IntegerProperty()
    acknowledged_by = StringProperty()


MODELS: tuple[type[StructuredNode], ...] = (Alert,)
