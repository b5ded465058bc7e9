"""The channel a request came by (api/channels.py): the service names its in-process ones; a client's header is
honoured for the stdio MCP server's `mcp` and the command line's `cli` only, so no client can pass as the console
or the scheduler."""

from __future__ import annotations

from grimoire.api.channels import channel_of
from grimoire.graph.audit.channel import Channel


def _scope(header: bytes | None = None, state: dict[str, str] | None = None) -> dict[str, object]:
    headers = [(b"x-grimoire-channel", header)] if header is not None else []
    return {"type": "http", "headers": headers, "state": state or {}}


def test_a_clients_header_names_mcp_or_cli_and_nothing_else() -> None:
    assert channel_of(_scope()) is Channel.rest
    assert channel_of(_scope(b"mcp")) is Channel.mcp
    assert channel_of(_scope(b"cli")) is Channel.cli
    for claimed in (b"console", b"scheduler", b"CLI", b"rest ", b""):
        assert channel_of(_scope(claimed)) is Channel.rest, claimed


def test_only_the_service_names_the_console() -> None:
    assert channel_of(_scope(state={"channel": "console"})) is Channel.console
    assert channel_of(_scope(b"cli", state={"channel": "mcp"})) is Channel.mcp
