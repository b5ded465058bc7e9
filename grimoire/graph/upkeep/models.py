"""The upkeep's control-plane node, as a neomodel class on the service's driver (graph/db/ogm.py): one
VectorIndexBuild per vector index it keeps, saying when the index was last built from scratch and whether a
rebuild is under way. Its constraint is in cypher/schema/constraints.cypher."""

from __future__ import annotations

from neomodel import FloatProperty, IntegerProperty, StringProperty, StructuredNode


class VectorIndexBuild(StructuredNode):  # type: ignore[misc]
    """A vector index's last build. `built_at`: when the last rebuild started (what was written after it
    counts as written since); `rebuilding_since`: a rebuild started then and is not online yet."""

    __label__ = "VectorIndexBuild"
    uid = StringProperty(unique_index=True, required=True, db_property="id")  # the index's name
    built_at = IntegerProperty()
    size_at_build = IntegerProperty()
    rebuilding_since = IntegerProperty()
    last_rebuild_seconds = FloatProperty()  # at most: from the start to the look that found it online
    rebuilds = IntegerProperty(default=0)
    valid_from = IntegerProperty(required=True)
    recorded_at = IntegerProperty(required=True)


def mark(name: str, now: int, **fields: int | float | None) -> VectorIndexBuild:
    """Set `fields` on the index's node (made on first use); call inside graph/db/ogm.py `write`, beside the
    audit record of the change."""
    node: VectorIndexBuild | None = VectorIndexBuild.nodes.get_or_none(uid=name)
    if node is None:
        node = VectorIndexBuild(uid=name, valid_from=now, rebuilds=0)
    for key, value in fields.items():
        setattr(node, key, value)
    node.recorded_at = now
    node.save()
    return node


def built(name: str, now: int, started: int, size: int | None, seconds: float) -> VectorIndexBuild:
    """A rebuild that started at `started` is online: what is written from then on counts as written since."""
    node = mark(name, now, built_at=started, size_at_build=size, rebuilding_since=None, last_rebuild_seconds=seconds)
    node.rebuilds = (node.rebuilds or 0) + 1
    node.save()
    return node


def builds() -> dict[str, VectorIndexBuild]:
    """Every kept index's node, by name; call inside graph/db/ogm.py `read` or `write`."""
    return {b.uid: b for b in VectorIndexBuild.nodes.all()}


MODELS = (VectorIndexBuild,)
