"""The API docs work without internet: /docs and /redoc reference no other host, and every asset
they load answers 200 from the service itself (the files of the fastapi-offline package)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from importlib.resources import files
from urllib.parse import urlsplit

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.api.docs import ASSETS_URL
from grimoire.graph.settings import Settings

PAGES = ("/docs", "/redoc")
# An absolute (https://host) or scheme-relative (//host) URL anywhere in a page.
OTHER_HOST = re.compile(r"(?:\b[a-z][a-z0-9+.-]*:)?//[\w.-]", re.IGNORECASE)
# A quoted path in an inline script: Swagger UI's `url: '/openapi.json'`, its OAuth2 redirect.
SCRIPT_PATH = re.compile(r"""['"](/[^'"\s]*)['"]""")


class _References(HTMLParser):
    """What a page makes the browser load: src, href and ReDoc's spec-url attributes, and the
    paths its inline scripts name."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in ("src", "href", "spec-url") and value]
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.urls += SCRIPT_PATH.findall(data)


def references(page: str) -> list[str]:
    parser = _References()
    parser.feed(page)
    return parser.urls


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The service's own app; the docs need no database, so its start-up (lifespan) is not run."""
    yield TestClient(create_app(Settings()))


@pytest.mark.parametrize("page", PAGES)
def test_docs_page_references_no_other_host(client: TestClient, page: str) -> None:
    answer = client.get(page)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert OTHER_HOST.search(answer.text) is None, OTHER_HOST.search(answer.text)
    refs = references(answer.text)
    assert refs, "the page loads nothing: not the docs page"
    for url in refs:
        parts = urlsplit(url)
        assert (parts.scheme, parts.netloc) == ("", ""), url
        assert url.startswith("/"), url


def test_every_asset_the_docs_reference_answers_200_from_the_service(client: TestClient) -> None:
    refs = {url for page in PAGES for url in references(client.get(page).text)}
    assert {f"{ASSETS_URL}/swagger-ui-bundle.js", f"{ASSETS_URL}/swagger-ui.css", f"{ASSETS_URL}/redoc.standalone.js",
            f"{ASSETS_URL}/favicon.png", "/openapi.json", "/docs/oauth2-redirect"} <= refs
    bundled = files("fastapi_offline") / "static"
    for url in sorted(refs):
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert answer.content, url
        if url.startswith(f"{ASSETS_URL}/"):  # byte for byte the package's file
            assert answer.content == (bundled / url.removeprefix(f"{ASSETS_URL}/")).read_bytes(), url
    assert client.get(f"{ASSETS_URL}/swagger-ui-bundle.js").headers["content-type"].startswith("text/javascript")
    assert client.get(f"{ASSETS_URL}/swagger-ui.css").headers["content-type"].startswith("text/css")
    assert "/health" in client.get("/openapi.json").json()["paths"]
    assert OTHER_HOST.search(client.get("/docs/oauth2-redirect").text) is None


def test_an_asset_that_is_not_bundled_is_a_404(client: TestClient) -> None:
    assert client.get(f"{ASSETS_URL}/swagger-ui-standalone-preset.js").status_code == 404


def test_the_check_catches_fastapis_cdn_pages() -> None:
    """FastAPI's default pages load from a CDN: the same checks fail on them."""
    default = TestClient(FastAPI())
    for page in PAGES:
        html = default.get(page).text
        found = OTHER_HOST.search(html)
        assert found is not None
        assert any(urlsplit(url).netloc == "cdn.jsdelivr.net" for url in references(html))
