"""Who a tool call acts as: only ever the API key's principal.

Over HTTP the bearer key is verified by KeyVerifier, the SDK's token verifier, which looks the key up
exactly as REST does (api/auth.py resolve: the admin key, the key cache, the database); every tool then
forwards that same key to its route. Over stdio the key comes from the environment (GRIMOIRE_API_KEY) and
is checked once at start. No tool takes an identity as an argument; an `agent_id` a tool takes names whose
memory to act on, and the route decides, as for REST, whether this key may."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from grimoire.api.auth import KeyCache, resolve
from grimoire.graph.services import Services

KEY_ENV = "GRIMOIRE_API_KEY"


@dataclass(frozen=True)
class Caller:
    key: str
    key_id: str
    agent_id: str | None
    scopes: frozenset[str]

    @property
    def is_admin(self) -> bool:
        return "admin" in self.scopes

    @property
    def is_person(self) -> bool:
        """A person's key (the agent's owner, scope `person`) or the admin's: never the agent's own key."""
        return self.is_admin or "person" in self.scopes

    @classmethod
    def from_me(cls, key: str, me: dict[str, Any]) -> Caller:
        """From GET /agents/me (a stdio server checks its key so)."""
        agent = me.get("agent") or {}
        return cls(key, me["key_id"], agent.get("id"), frozenset(me.get("scopes") or []))


class KeyVerifier:
    """The MCP SDK's TokenVerifier: a bearer key is valid when REST would take it."""

    def __init__(self, services: Services, cache: KeyCache):
        self.services = services
        self.cache = cache

    async def verify_token(self, token: str) -> AccessToken | None:
        principal = await anyio.to_thread.run_sync(resolve, self.services, self.cache, token)
        if principal is None:
            return None
        return AccessToken(token=token, client_id=principal.key_id, subject=principal.agent_id,
                           scopes=sorted(s.value for s in principal.scopes))


def bearer_caller() -> Caller | None:
    """The verified caller of the current HTTP request, if any."""
    token = get_access_token()
    if token is None:
        return None
    return Caller(token.token, token.client_id, token.subject, frozenset(token.scopes))
