"""The `grimoire` commands that read or act on agents (analytics, curator, playbook, audit, context), through the
typed client against the running service, as `grimoire mcp` does: the service's visibility, audit, limits and errors
hold for them as for any caller, and they work against a replica on another host. The key is GRIMOIRE_API_KEY (or
`--key`), else the admin key (GRIMOIRE_ADMIN_KEY or the file `grimoire up` keeps); the URL GRIMOIRE_URL (or `--url`),
else the configured host and port. Only serving, the schema, loading and the local server stay direct (api/cli.py).
Answers print as the routes give them (JSON), errors as the service's message on stderr with exit status 2."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel

from grimoire.api.mcp.calls import CHANNEL_HEADER
from grimoire.client import Grimoire, GrimoireError
from grimoire.graph.audit.channel import Channel
from grimoire.graph.settings import Settings

# the audit trail says the change came by the command line (api/channels.py honours the header's `cli`)
CHANNEL = {CHANNEL_HEADER: Channel.cli.value}
Command = Callable[[Grimoire, argparse.Namespace], object]


def add_connection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default=None, help="the running service (default: GRIMOIRE_URL, else the "
                                                    "configured GRIMOIRE_API_HOST and GRIMOIRE_API_PORT)")
    parser.add_argument("--key", default=None, help="the API key (default: GRIMOIRE_API_KEY, else the admin key)")


def url_of(args: argparse.Namespace, settings: Settings) -> str:
    host = "127.0.0.1" if settings.api_host in ("0.0.0.0", "::") else settings.api_host
    host = f"[{host}]" if ":" in host else host  # an IPv6 address
    return str(args.url or os.environ.get("GRIMOIRE_URL") or f"http://{host}:{settings.api_port}")


def key_of(args: argparse.Namespace, settings: Settings) -> str | None:
    from grimoire.api.cli import admin_key_file

    if args.key or os.environ.get("GRIMOIRE_API_KEY"):
        return str(args.key or os.environ["GRIMOIRE_API_KEY"])
    if settings.admin_key:
        return settings.admin_key
    kept = admin_key_file(settings)
    return kept.read_text().strip() if kept.exists() else None


def run(command: Command, args: argparse.Namespace, settings: Settings) -> int:
    """One command against the service; what it returns printed (text as it is, models and lists as JSON)."""
    url = url_of(args, settings)
    try:
        http = httpx.Client(base_url=url.rstrip("/"), timeout=600, headers=CHANNEL)
        with http, Grimoire(url, api_key=key_of(args, settings), http=http) as g:
            out = command(g, args)
    except GrimoireError as exc:
        print(f"grimoire: {exc.message}", file=sys.stderr)
        return 2
    except (httpx.TransportError, httpx.InvalidURL, ValueError) as exc:
        hint = f" (is the service running at {url}? `grimoire up`, or set GRIMOIRE_URL)" \
            if isinstance(exc, httpx.TransportError) else ""
        print(f"grimoire: {exc}{hint}", file=sys.stderr)
        return 2
    if out is None:
        return 0
    if isinstance(out, str):
        sys.stdout.write(out if out.endswith("\n") or not out else out + "\n")
    else:
        print(json.dumps(jsonable(out), indent=2, ensure_ascii=False, default=str))
    return 0


def jsonable(out: object) -> object:
    """A model (or a list of them) as its JSON answer, the way the route gave it."""
    if isinstance(out, list):
        return [jsonable(x) for x in out]
    return out.model_dump(mode="json", by_alias=True, exclude_unset=True) if isinstance(out, BaseModel) else out


def analytics(g: Grimoire, args: argparse.Namespace) -> object:
    if args.analysis == "cascade":
        if not args.entity or args.block is None:
            raise ValueError("cascade needs --entity and --block")
        return g.cascade({"entity": args.entity, "block": args.block, "hops": args.hops, "limit": args.limit})
    params: dict[str, Any] = json.loads(args.params) if args.params else {}
    params |= {k: v for k, v in (("source", args.source), ("target", args.target)) if v}
    body = {"graph": args.graph, "block": args.block, "known_at": args.known_at, "agent_id": args.agent,
            "orientation": args.orientation, "params": params, "write": args.write, "limit": args.limit}
    return g.run_analysis(args.analysis, {k: v for k, v in body.items() if v is not None})


def learning(g: Grimoire, args: argparse.Namespace) -> object:
    if args.command == "playbook":
        text = g.get_playbook(agent_id=args.agent)
        if not args.out:
            return text
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"{args.out}: PLAYBOOK.md of {args.agent} ({len(text.splitlines())} lines)", file=sys.stderr)
        return None
    return g.run_curator_cycle(body={"agent_id": args.agent})


def audit(g: Grimoire, args: argparse.Namespace) -> object:
    agent, action = args.agent, args.action
    if action == "fold":
        done = g.fold_audit()
        return f"{done.months} months folded into digests, {done.records} records pruned\n"
    listing = {"verb": args.verb, "actor": args.actor, "limit": args.limit,
               "item": args.item if action in ("log", "recent") else None}
    if action == "log":
        return g.agent_log(agent, **listing) if agent else "".join(f"{r.line}\n" for r in g.list_all_audit(**listing))
    if action == "recent":
        return g.list_audit(agent, **listing) if agent else g.list_all_audit(**listing)
    if not agent:
        raise ValueError(f"audit {action} needs --agent")
    if action == "archive":
        return g.agent_archive(agent)
    if action == "forgotten":
        return g.audit_forgotten(agent, _needed(args.about, "audit forgotten", "--about"), limit=args.limit)
    if action == "reflection":
        return g.audit_of_reflection(agent, _needed(args.reflection, "audit reflection", "--reflection"))
    if action == "critical":
        return g.audit_critical(agent)
    return g.audit_of_item(agent, _needed(args.item, "audit item", "--item"))


def _needed(value: str | None, command: str, flag: str) -> str:
    if not value:
        raise ValueError(f"{command} needs {flag}")
    return value


def context(g: Grimoire, args: argparse.Namespace) -> object:
    agent, action = args.agent, args.action
    simple: dict[str, Callable[[], object]] = {
        "policy": lambda: g.get_context_policy(agent),
        "revisions": lambda: g.list_policy_revisions(agent),
        "delta": lambda: g.context_policy_delta(agent, args.from_revision, to_revision=args.to_revision),
        "decisions": lambda: g.list_context_decisions(agent, limit=args.limit),
        "beliefs": lambda: g.list_beliefs(agent),
        "mutations": lambda: g.list_context_mutations(agent),
        "recalibrate": lambda: g.recalibrate_context_policy(agent),
        "stage": lambda: g.stage_context_mutations(agent),
    }
    if action in simple:
        return simple[action]()
    if action == "feedback":
        if not args.assembly:
            raise ValueError("feedback needs --assembly (the workspace's assembly_id)")
        body = {"assembly_id": args.assembly, "response": args.response, "quality": args.quality,
                "cited": [x for x in (args.cited or "").split(",") if x], "cost": args.cost,
                "missing": args.missing or []}
        return g.context_feedback(agent, {k: v for k, v in body.items() if v is not None})
    # assembled now (not the kept workspace), unless the --situation file asks for preassembled
    built = g.assemble_context(agent, {"preassembled": False, **situation(args)})
    return built.text if args.text else built


def situation(args: argparse.Namespace) -> dict[str, object]:
    """POST …/context/assemble's body: the --situation file, the flags over it."""
    body: dict[str, object] = json.loads(Path(args.situation).read_text()) if args.situation else {}
    given = {"task": args.task, "phase": args.phase, "regime": args.regime, "query": args.query,
             "budget": args.budget, "tick": args.tick}
    body.update({k: v for k, v in given.items() if v is not None})
    if args.pad:
        p, a, d = (float(x) for x in args.pad.split(","))
        body["pad"] = {"pleasure": p, "arousal": a, "dominance": d}
    return body
