"""The service's OpenAPI document, the TypeScript client's source: clients/typescript/openapi.json, built from the
app in-process (no service running), and the client's types generated from it (clients/typescript/src/schema.ts, by
openapi-typescript: `npm run generate`). `grimoire client openapi --write` rewrites the document, then the types when
the client's packages are installed (`make ts-client`); tests/unit/test_openapi_doc.py fails when the document is
stale, tests/integration/test_typescript_client.py when the types are."""

from __future__ import annotations

import json
import shutil
import subprocess

from grimoire.graph.settings import PROJECT_ROOT, Settings

CLIENT = PROJECT_ROOT / "clients" / "typescript"
TARGET = CLIENT / "openapi.json"
GENERATE = ["node", "scripts/generate.mjs"]


def document() -> str:
    """The app's OpenAPI document as the file holds it: FastAPI's order, two-space indents, a final newline."""
    from grimoire.api.app import create_app

    return json.dumps(create_app(Settings()).openapi(), indent=2, ensure_ascii=False) + "\n"


def write() -> bool:
    text = document()
    if TARGET.exists() and TARGET.read_text() == text:
        return False
    TARGET.write_text(text)
    return True


def generate_types() -> str:
    """src/schema.ts regenerated from the document, when node and the client's packages are there; else what to run."""
    if shutil.which("node") is None or not (CLIENT / "node_modules" / "openapi-typescript").is_dir():
        return "src/schema.ts not regenerated (no node or no clients/typescript/node_modules): run `make ts-client`"
    done = subprocess.run(GENERATE, cwd=CLIENT, capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).strip()
