"""The API for bench/exact_path.py's HTTP pass: `uvicorn bench.exact_server:create_app --factory`, the app as
deployed (BENCH_EXACT_WAY=one_entity_read, the default: the retrieval's reads overlapped, the members, BM25 and the
named entities read in one statement, the candidates with the graph's neighbours in another) or as one of the ways
before it (bench/exact_path.py LADDER: each way is the one before it and one thing more), so that the ways run side by
side on one machine and one store."""

from __future__ import annotations

import os

from fastapi import FastAPI

from grimoire.api.app import create_app as _create_app


def create_app() -> FastAPI:
    from bench.exact_path import set_way

    set_way(os.environ.get("BENCH_EXACT_WAY", "one_entity_read"))
    return _create_app()
