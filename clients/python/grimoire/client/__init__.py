"""A typed Python client for Grimoire: sync (`Grimoire`) and async (`AsyncGrimoire`) on httpx.

    from grimoire.client import Grimoire
    with Grimoire("http://127.0.0.1:8000", api_key="gk_...") as g:
        g.remember("Gas on mainnet fell below 10 gwei at 03:00 UTC")
        for hit in g.recall_text("when is gas cheap").results:
            print(hit.text)

Every route has a method (routes.py, generated from the service's routes, named as its MCP tool where it has
one), taking and returning the service's models as the wire carries them (models.py, generated from its OpenAPI
document: this distribution needs httpx and pydantic, nothing of the server); a failure raises NotFound, Conflict,
Invalid, Forbidden, Unauthorized, TooManyRequests or Unavailable (with retry_after) after retrying 429s and 503s
with backoff (never sooner than Retry-After); `iterate`
pages through a list. GRIMOIRE_URL and GRIMOIRE_API_KEY are the defaults for the URL and the key. The hand-written
conveniences (remember, learn, recall_text: base.CONVENIENCES) never take a generated method's name, so every route
stays callable (api/client_gen.py refuses to generate one of their names)."""

from __future__ import annotations

from typing import Any

from grimoire.client.base import AsyncBase, SyncBase
from grimoire.client.errors import (
    Conflict,
    Forbidden,
    GrimoireError,
    Invalid,
    NotFound,
    TooLarge,
    TooManyRequests,
    Unauthorized,
    Unavailable,
)
from grimoire.client.routes import ROUTES, AsyncRoutes, Routes

__all__ = ["ROUTES", "AsyncGrimoire", "Conflict", "Forbidden", "Grimoire", "GrimoireError", "Invalid", "NotFound",
           "TooLarge", "TooManyRequests", "Unauthorized", "Unavailable"]


def _episode(text: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"episodes": [{"type": "observation", "text": text, **fields}]}


class Grimoire(SyncBase, Routes):
    """The service's routes, one method each, plus the words an agent says most: remember, learn, recall_text."""

    def remember(self, text: str, **episode: Any) -> Any:
        """Record what happened: one episode (type observation unless given), its id returned in `ids`."""
        return self.record_episodes(_episode(text, episode))

    def learn(self, content: str, category: str = "Insight", **entry: Any) -> Any:
        """Add what was learned: one entry through admission (its decision returned)."""
        return self.add_entries({"entries": [{"category": category, "content": content, **entry}]})[0]

    def recall_text(self, text: str, k: int = 10, **request: Any) -> Any:
        """What the agent knows about `text`: hybrid retrieval, k items within the token budget (`recall` is the
        route GET /agents/{agent_id}/recall, recall by query type)."""
        return self.retrieve_memory({"text": text, "k": k, **request})


class AsyncGrimoire(AsyncBase, AsyncRoutes):
    """The async client: the same methods, awaited."""

    async def remember(self, text: str, **episode: Any) -> Any:
        return await self.record_episodes(_episode(text, episode))

    async def learn(self, content: str, category: str = "Insight", **entry: Any) -> Any:
        return (await self.add_entries({"entries": [{"category": category, "content": content, **entry}]}))[0]

    async def recall_text(self, text: str, k: int = 10, **request: Any) -> Any:
        return await self.retrieve_memory({"text": text, "k": k, **request})
