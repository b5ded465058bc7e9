"""The TypeScript client's OpenAPI document (clients/typescript/openapi.json) is the app's own: its types are
generated from that file (src/schema.ts, checked against it by tests/integration/test_typescript_client.py), so a
route, parameter or model changed without `grimoire client openapi --write` fails here."""

from __future__ import annotations

import json
import re

import pytest
from fastapi import FastAPI

from grimoire.api import openapi_doc
from grimoire.api.app import create_app
from grimoire.client import base
from grimoire.graph.settings import Settings

LAYER = openapi_doc.CLIENT / "src" / "index.ts"


def test_the_committed_document_is_the_apps() -> None:
    assert openapi_doc.TARGET.read_text() == openapi_doc.document(), "run `grimoire client openapi --write`"


def test_the_document_holds_every_route_and_the_error_shape() -> None:
    committed = json.loads(openapi_doc.TARGET.read_text())
    served = create_app(Settings()).openapi()
    assert committed["paths"].keys() == served["paths"].keys()
    assert committed["components"]["schemas"]["Problem"]["required"] == ["type", "title", "status", "detail"]


def test_a_changed_route_makes_the_document_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    real = create_app

    def renamed(settings: Settings) -> FastAPI:
        app = real(settings)
        app.openapi()["paths"]["/health"]["get"]["summary"] = "changed"
        return app

    monkeypatch.setattr("grimoire.api.app.create_app", renamed)
    assert openapi_doc.TARGET.read_text() != openapi_doc.document()


def _strings(name: str, source: str) -> set[str]:
    """The string literals of the TypeScript constant `name` (up to its statement's end)."""
    found = re.search(rf"^const {name} = (.*?);$", source, re.M | re.S)
    assert found, f"no const {name} in {LAYER}"
    return set(re.findall(r'"([^"]+)"', found.group(1)))


def test_the_typescript_client_resends_what_the_python_client_does() -> None:
    # After a broken connection a request goes out again only where running it twice changes nothing: the two
    # clients keep one table (grimoire/client/base.py), so a route made safe or unsafe there must change here too.
    source = LAYER.read_text()
    assert _strings("SAFE_METHODS", source) == set(base.SAFE_METHODS)
    assert _strings("SAFE_POSTS", source) == set(base.SAFE_POSTS)
    assert _strings("KEYED_POSTS", source) == set(base.KEYED_POSTS)
    retried = re.search(r"^export const RETRIED: readonly number\[\] = \[([\d, ]+)\];$", source, re.M)
    assert retried and {int(n) for n in retried.group(1).split(",")} == set(base.RETRIED)
