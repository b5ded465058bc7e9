"""python -m grimoire.loaders.aave [DATA]: load the Aave topology, governance and history (idempotent)."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from grimoire.graph.db.connection import wait_for_database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.schema import apply_schema
from grimoire.graph.services import connect
from grimoire.graph.settings import PROJECT_ROOT, get_settings
from grimoire.loaders.aave.load import load

DEFAULT_DATA = PROJECT_ROOT.parent / "shared" / "data"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    data = Path(args[0]) if args else DEFAULT_DATA
    settings = get_settings()
    embedder = get_embedder(settings.embedding_model, settings.embedding_batch_size)
    db = connect(settings)
    try:
        wait_for_database(db, settings.startup_wait_seconds)
        apply_schema(db, embedder.dimension, embedder.model_name)
        started = time.monotonic()
        report = load(db, embedder, data, freshness=settings.facts)
    finally:
        db.close()
    print(json.dumps({**asdict(report), "seconds": round(time.monotonic() - started, 1)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
