"""The API for bench/exact_path.py's HTTP pass: `uvicorn bench.exact_server:create_app --factory`, the app as
deployed, with the retrieval's reads overlapped and the members and BM25 read in one statement (the default,
BENCH_EXACT_WAY=one_read), overlapped as two statements (`overlapped`: graph/retrieval/context.py ONE_READ off) or one
after another as before issue 41's exact-path work (`sequential`: OVERLAP off), so that the ways run side by side on
one machine and one store."""

from __future__ import annotations

import os

from fastapi import FastAPI

from grimoire.api.app import create_app as _create_app
from grimoire.graph.retrieval import context


def create_app() -> FastAPI:
    way = os.environ.get("BENCH_EXACT_WAY", "one_read")
    context.OVERLAP = way != "sequential"
    context.ONE_READ = way == "one_read"
    return _create_app()
