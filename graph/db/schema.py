"""The schema applied at start-up: constraints, range, full-text and vector indexes.

Everything is IF NOT EXISTS, so applying twice changes nothing. Because IF NOT EXISTS
would also silently keep a vector index of another dimension, the dimensions of the
existing vector indexes are checked first and a mismatch stops start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.db.connection import Database

SCHEMA_FILES = ("schema/constraints", "schema/range_indexes", "schema/fulltext_indexes", "schema/vector_indexes")
VECTOR_INDEXES = ("episode_embedding", "entry_embedding", "entity_embedding")


class SchemaMismatch(RuntimeError):
    """The stored vectors were made by a model of another dimension than the configured one."""


@dataclass(frozen=True)
class SchemaReport:
    constraints_added: int
    indexes_added: int


def vector_index_dimensions(db: Database) -> dict[str, int]:
    return {r["name"]: int(r["dimensions"]) for r in db.run("schema/show_vector_indexes") if r["dimensions"]}


def check_vector_dimensions(db: Database, dimension: int, model: str) -> None:
    wrong = {name: dim for name, dim in vector_index_dimensions(db).items()
             if name in VECTOR_INDEXES and dim != dimension}
    if wrong:
        found = ", ".join(f"{name} has {dim}" for name, dim in sorted(wrong.items()))
        raise SchemaMismatch(
            f"Embedding dimension mismatch: the model {model!r} makes {dimension}-dimensional vectors, "
            f"but the vector index {found} dimensions. Refusing to start. Either set "
            f"GRIMOIRE_EMBEDDING_MODEL back to the model the data was embedded with, or drop the "
            f"vector indexes and re-embed the stored nodes with the new model."
        )


def apply_schema(db: Database, dimension: int, model: str = "the embedding model",
                 quantization: bool | None = None) -> SchemaReport:
    """Constraints and indexes, created when missing (an existing index keeps its configuration).
    Vector indexes are int8-quantized unless GRIMOIRE_VECTOR_QUANTIZATION=false: about half the
    search time on a fragmented index; retrieval re-scores what they return with exact cosines."""
    check_vector_dimensions(db, dimension, model)
    if quantization is None:
        from graph.settings import get_settings

        quantization = get_settings().vector_quantization
    constraints = indexes = 0
    for name in SCHEMA_FILES:
        for counters in db.run_all(name, dimensions=dimension, quantization=quantization):
            constraints += counters.constraints_added
            indexes += counters.indexes_added
    db.run("schema/await_indexes", seconds=300)
    return SchemaReport(constraints_added=constraints, indexes_added=indexes)
