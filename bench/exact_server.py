"""The API for bench/exact_path.py's HTTP pass: `uvicorn bench.exact_server:create_app --factory`, the app as
deployed, with the retrieval's reads overlapped (the default) or one after another as before issue 41's exact-path
work (BENCH_EXACT_WAY=sequential: graph/retrieval/context.py OVERLAP off), so that both ways run side by side on one
machine and one store."""

from __future__ import annotations

import os

from fastapi import FastAPI

from grimoire.api.app import create_app as _create_app
from grimoire.graph.retrieval import context


def create_app() -> FastAPI:
    context.OVERLAP = os.environ.get("BENCH_EXACT_WAY", "overlapped") != "sequential"
    return _create_app()
