"""The TypeScript client's OpenAPI document (clients/typescript/openapi.json) is the app's own: its types are
generated from that file (src/schema.ts, checked against it by tests/integration/test_typescript_client.py), so a
route, parameter or model changed without `grimoire client openapi --write` fails here."""

from __future__ import annotations

import json

import pytest
from fastapi import FastAPI

from api import openapi_doc
from api.app import create_app
from graph.settings import Settings


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

    monkeypatch.setattr("api.app.create_app", renamed)
    assert openapi_doc.TARGET.read_text() != openapi_doc.document()
