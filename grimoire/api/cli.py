"""The `grimoire` command line: the local Neo4j, the schema, loading, and the API server, run directly; the commands
that read or act on agents go through the typed client to the running service (api/cli_remote.py)."""

from __future__ import annotations

import argparse
import inspect
import json
import os
import secrets
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grimoire.api import cli_remote as remote
from grimoire.graph.audit import channel as channels
from grimoire.graph.db.connection import DatabaseUnavailable, wait_for_database
from grimoire.graph.db.local_server import LocalNeo4j, LocalServerError
from grimoire.graph.knowledge import mental_models
from grimoire.graph.schema import SchemaMismatch, apply_schema, progress_line
from grimoire.graph.services import connect, local_server
from grimoire.graph.settings import Settings, get_settings
from grimoire.graph.upkeep.rebuild import rebuild_vector_indexes

WORKER_HEALTHCHECK_SECONDS = 120  # `--workers`: how long uvicorn waits for a worker to answer before replacing it


def _say(msg: str) -> None:
    print(msg, flush=True)


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    import anyio

    from grimoire.api.mcp.catalog import Profile
    from grimoire.api.mcp.stdio import serve

    anyio.run(lambda: serve(settings, Profile(args.profile or settings.mcp_profile), url=args.url))
    return 0


def cmd_neo4j(args: argparse.Namespace, settings: Settings) -> int:
    if settings.neo4j_uri:
        _say(f"NEO4J_URI is set ({settings.neo4j_uri}): Grimoire uses that server and runs none of its own.")
        if args.action == "status":
            db = connect(settings)
            try:
                wait_for_database(db, 5)
                _say("it answers")
            finally:
                db.close()
        return 0
    server = local_server(settings)
    if args.action == "start":
        server.start()
        _say(f"Neo4j is running: {server.uri} (Browser {server.browser_url}, user {server.user}, "
             f"password in {server.password_file})")
    elif args.action == "stop":
        _say("stopped" if server.stop() else "not running")
    else:
        _say(json.dumps(server.status(), indent=2))
    return 0


def cmd_schema(args: argparse.Namespace, settings: Settings) -> int:
    from grimoire.graph.embeddings import get_embedder

    embedder = get_embedder(settings.embedding_model, settings.embedding_batch_size)
    db = connect(settings)
    try:
        wait_for_database(db, settings.startup_wait_seconds)
        if args.action == "rebuild-vectors":
            def show(percent: dict[str, float]) -> None:
                print(f"  {progress_line(percent)}", file=sys.stderr, flush=True)

            rebuild_vector_indexes(db, embedder.dimension, quantization=settings.vector_quantization, progress=show)
            _say("vector indexes rebuilt (episode_embedding, entry_embedding)")
            return 0
        report = apply_schema(db, embedder.dimension, embedder.model_name, settings.vector_quantization)
        seeded = mental_models.ensure(db, embedder).created if settings.seed_mental_models else []
    finally:
        db.close()
    _say(f"schema applied: {report.constraints_added} constraints and {report.indexes_added} indexes added "
         f"(vector dimension {embedder.dimension}, model {embedder.model_name})")
    if seeded:
        _say(f"seeded {len(seeded)} core mental models")
    return 0


def _offline_server(settings: Settings, what: str) -> LocalNeo4j:
    if settings.neo4j_uri:
        raise LocalServerError(f"the offline {what} is the project's local Neo4j's (NEO4J_URI is set: "
                               f"{settings.neo4j_uri}); use the online one, or the server's own neo4j-admin")
    return local_server(settings)


def cmd_backup(args: argparse.Namespace, settings: Settings) -> int:
    from grimoire.graph.backup import digest, offline, online

    if args.offline:
        report = offline.dump(_offline_server(settings, "backup"), Path(args.path or "backups"))
        _say(f"dumped the stopped local Neo4j to {report.path} ({report.bytes:,} bytes, {report.seconds:.1f}s)")
        return 0
    db = connect(settings)
    try:
        wait_for_database(db, settings.startup_wait_seconds)
        if args.digest:
            _say(digest.digest(db).model_dump_json(indent=2))
            return 0
        path = Path(args.path or time.strftime("grimoire-%Y%m%d-%H%M%S.jsonl.gz", time.gmtime()))
        done = online.backup(db, path, progress=online.Printer("backup"))
    finally:
        db.close()
    _say(f"backed up {done.nodes:,} nodes, {done.relationships:,} relationships, {done.constraints} constraints and "
         f"{done.indexes} indexes to {done.path} ({done.bytes:,} bytes, {done.seconds:.1f}s)")
    return 0


def cmd_restore(args: argparse.Namespace, settings: Settings) -> int:
    from grimoire.graph.backup import offline, online

    if args.offline:
        seconds = offline.load(_offline_server(settings, "restore"), Path(args.path))
        _say(f"loaded {args.path} into the stopped local Neo4j ({seconds:.1f}s); start it: grimoire neo4j start")
        return 0
    db = connect(settings)
    try:
        wait_for_database(db, settings.startup_wait_seconds)
        done = online.restore(db, Path(args.path), progress=online.Printer("restore"))
    except online.BackupError as exc:
        print(f"grimoire: not restored: {exc}", file=sys.stderr)
        return 1
    finally:
        db.close()
    _say(f"restored {done.nodes:,} nodes, {done.relationships:,} relationships, {done.constraints} constraints and "
         f"{done.indexes} indexes in {done.seconds:.1f}s (indexes online after {done.schema_seconds:.1f}s of it)")
    return 0


def admin_key_file(settings: Settings) -> Path:
    return settings.neo4j_home.parent / "admin_key"


def with_admin_key(settings: Settings) -> Settings:
    """GRIMOIRE_ADMIN_KEY when set; otherwise a generated key kept in a file only the user can read,
    the same on every start, so the first agents can be registered."""
    if settings.admin_key:
        return settings
    path = admin_key_file(settings)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(f"gadmin_{secrets.token_urlsafe(32)}\n")
    return settings.model_copy(update={"admin_key": path.read_text().strip()})


def cmd_load(args: argparse.Namespace, settings: Settings) -> int:
    if args.dataset == "demo":
        return load_demo(args.url, with_admin_key(settings))
    from grimoire.loaders.aave.__main__ import main as load_aave

    return load_aave([args.data] if args.data else [])


def load_demo(url: str, settings: Settings) -> int:
    """The demo agent (loaders/demo.py) written through a running service's routes; prints the keys to sign in
    to the console with."""
    import httpx

    from grimoire.loaders.demo import seed

    assert settings.admin_key is not None
    db = connect(settings)
    try:
        with httpx.Client(base_url=url.rstrip("/"), timeout=300) as client:
            demo = seed(client, settings.admin_key, db=db, progress=lambda step: _say(f"[demo] {step}"))
    finally:
        db.close()
    print(json.dumps({"console": f"{url.rstrip('/')}/console", "agent": demo.agent_id, "keys": demo.keys}, indent=2))
    return 0


def _print_urls(settings: Settings, host: str, port: int) -> None:
    _say("")
    _say(f"  Grimoire API docs:  http://{host}:{port}/docs")
    _say(f"  Health:             http://{host}:{port}/health")
    _say(f"  Memory console:     http://{host}:{port}/console   (sign in with a person's or the admin key; "
         "`grimoire load demo` adds an agent to look at)")
    if settings.admin_key and admin_key_file(settings).exists():
        _say(f"  Admin key:          {settings.admin_key}")
        _say(f"    (kept in {admin_key_file(settings)}; set GRIMOIRE_ADMIN_KEY to choose your own)")
    elif not settings.admin_key:
        _say("  No admin key: set GRIMOIRE_ADMIN_KEY to register agents")
    if settings.uses_local_server:
        server = local_server(settings)
        _say(f"  Neo4j Browser:      {server.browser_url}")
        _say(f"    connect URL {server.uri}, user {server.user}, password {server.password}")
        _say(f"    (the password is kept in {server.password_file})")
    else:
        _say(f"  Neo4j:              {settings.neo4j_uri} (user {settings.neo4j_user})")
    _say("")


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from grimoire.api.app import create_app

    host = args.host or settings.api_host
    port = args.port or settings.api_port
    settings = with_admin_key(settings)
    workers = serving_workers(args, settings)
    _print_urls(settings, host, port)
    if workers == 1:
        uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
        return 0
    # N replicas behind one socket: each process builds the app from the environment (api/workers.py).
    from grimoire.api import workers as sizing

    _say(f"  {workers} replicas (--workers; GRIMOIRE_WORKERS), one model and scheduler each, sharing Neo4j")
    os.environ["GRIMOIRE_WORKERS"] = str(workers)
    if settings.admin_key:
        os.environ["GRIMOIRE_ADMIN_KEY"] = settings.admin_key
    extra: dict[str, Any] = {}
    if "timeout_worker_healthcheck" in inspect.signature(uvicorn.run).parameters:
        # uvicorn kills a worker that does not answer its ping within this; loading the model holds the
        # interpreter for seconds on a busy machine, so 5 s (its default) kills healthy workers at start.
        extra["timeout_worker_healthcheck"] = WORKER_HEALTHCHECK_SECONDS
    # The replicas' Prometheus meters in files they share, so a scrape reaching any one counts them all (api/prom.py).
    from grimoire.api import prom

    own = prom.multiprocess_dir() is None
    shared = prom.share_between_workers()
    try:
        sizing.serve("grimoire.api.app:create_app", host=host, port=port, workers=workers, log_level="info", **extra)
    finally:
        if own:
            shutil.rmtree(shared, ignore_errors=True)
    return 0


def serving_workers(args: argparse.Namespace, settings: Settings) -> int:
    """--workers, else GRIMOIRE_WORKERS, else what the machine's cores and memory allow (api/workers.py)."""
    from grimoire.api import workers as sizing

    chosen = getattr(args, "workers", None) or settings.workers
    if chosen:
        return int(chosen)
    neo4j_bytes = 0
    if settings.uses_local_server:  # the local server's heap and page cache come out of the same memory
        server = local_server(settings)
        neo4j_bytes = server.memory_bytes()
    return sizing.default_workers(sizing.Machine.here(neo4j_bytes), curator_process=settings.curator_process)


def cmd_up(args: argparse.Namespace, settings: Settings) -> int:
    if settings.uses_local_server:
        local_server(settings).start()
    cmd_schema(argparse.Namespace(action="apply"), settings)
    return cmd_serve(args, settings)


def cmd_client(args: argparse.Namespace, settings: Settings) -> int:
    from grimoire.api import client_gen

    if args.action == "openapi":
        return cmd_client_openapi(args)
    if not args.write:
        _say(client_gen.source())
        return 0
    _say(f"{client_gen.TARGET.parent}: {'rewritten' if client_gen.write() else 'already up to date'}")
    return 0


def cmd_client_openapi(args: argparse.Namespace) -> int:
    from grimoire.api import openapi_doc

    if not args.write:
        _say(openapi_doc.document().rstrip())
        return 0
    _say(f"{openapi_doc.TARGET}: {'rewritten' if openapi_doc.write() else 'already up to date'}")
    _say(openapi_doc.generate_types())
    return 0


def cmd_readme_table(args: argparse.Namespace, settings: Settings) -> int:
    """A table README.md shows, generated: printed, or (--write) rewritten in the README."""
    from grimoire.api import readme

    name = {"config": readme.CONFIG_TABLE, "routes": readme.ROUTE_TABLE, "spec": readme.SPEC_TABLE}[args.command]
    if not args.write:
        _say(readme.generated(name))
        return 0
    path = Path(args.readme) if args.readme else readme.README
    try:
        changed = readme.write(name, path)
    except readme.MissingSection as exc:
        print(f"grimoire: {exc}", file=sys.stderr)
        return 1
    _say(f"{path}: {name} {'rewritten' if changed else 'already up to date'}")
    return 0


def _remote(command: remote.Command) -> Callable[[argparse.Namespace, Settings], int]:
    """A command that reads or acts on agents: run through the client against the service (api/cli_remote.py)."""
    return lambda args, settings: remote.run(command, args, settings)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grimoire", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    mcp = sub.add_parser("mcp", help="the MCP server over stdio, for a desktop agent client (key: GRIMOIRE_API_KEY)")
    mcp.add_argument("--profile", choices=["default", "full"], default=None,
                     help="the tools offered (default: GRIMOIRE_MCP_PROFILE, else the ten an agent needs)")
    mcp.add_argument("--url", default=None, help="call this running service (default: GRIMOIRE_URL; unset: in-process)")
    mcp.set_defaults(func=cmd_mcp)
    neo = sub.add_parser("neo4j", help="the project's own local Neo4j server")
    neo.add_argument("action", choices=["start", "stop", "status"])
    neo.set_defaults(func=cmd_neo4j)

    schema = sub.add_parser("schema", help="constraints and indexes")
    schema.add_argument("action", choices=["apply", "rebuild-vectors"],
                        help="apply: create what is missing; rebuild-vectors: re-create the episode and entry "
                             "vector indexes in few segments (after a bulk load: faster searches)")
    schema.set_defaults(func=cmd_schema)

    backup = sub.add_parser("backup", help="back up the whole store (progress on stderr)")
    backup.add_argument("path", nargs="?", default=None,
                        help="online: the file (default grimoire-<UTC time>.jsonl.gz); --offline: the folder the "
                             "dump is written to (default backups/)")
    backup.add_argument("--offline", action="store_true",
                        help="the local Neo4j's dump (neo4j-admin database dump), while it is stopped")
    backup.add_argument("--digest", action="store_true",
                        help="print the store's digest instead (counts per label and type, hashes of every node and "
                             "relationship, the schema): the same before a backup and after its restore")
    backup.set_defaults(func=cmd_backup)
    restore = sub.add_parser("restore", help="restore a backup into an empty database (progress on stderr)")
    restore.add_argument("path", help="online: a backup file; --offline: the dump file or its folder")
    restore.add_argument("--offline", action="store_true",
                         help="load a dump into the local Neo4j (neo4j-admin database load), while it is stopped; "
                              "replaces its database")
    restore.set_defaults(func=cmd_restore)

    load = sub.add_parser("load", help="load real data (idempotent; progress on stderr)")
    load.add_argument("dataset", choices=["aave", "demo"],
                      help="aave: address book, Chainlink feeds, governance, history; demo: an agent with something "
                           "in every store, written through the running service (--url), for the console")
    load.add_argument("--url", default="http://127.0.0.1:8000", help="demo: the running service")
    load.add_argument("--data", default=None, help="the data folder (default ../shared/data)")
    load.set_defaults(func=cmd_load)

    from grimoire.graph.analytics.algorithms import Algorithm
    from grimoire.graph.analytics.projections import GraphKind, Orientation

    an = sub.add_parser("analytics", help="a GDS analysis or the failure cascade, as JSON")
    an.add_argument("analysis", choices=[a.value for a in Algorithm] + ["cascade"])
    an.add_argument("--graph", choices=[g.value for g in GraphKind], default=GraphKind.topology.value)
    an.add_argument("--block", type=int, default=None, help="topology / cascade: the block")
    an.add_argument("--known-at", type=int, default=None, help="topology: as believed at (ms)")
    an.add_argument("--agent", default=None, help="causal: whose graph; comention: whose episodes")
    an.add_argument("--orientation", choices=[o.value for o in Orientation], default=None)
    an.add_argument("--params", default=None, help='algorithm parameters as JSON, e.g. \'{"damping_factor": 0.9}\'')
    an.add_argument("--source", default=None, help="shortest_path: from")
    an.add_argument("--target", default=None, help="shortest_path: to")
    an.add_argument("--entity", default=None, help="cascade: the failing entity")
    an.add_argument("--hops", type=int, default=3, help="cascade: how far")
    an.add_argument("--write", action="store_true", help="keep the run and its results in the graph")
    an.add_argument("--limit", type=int, default=20)
    remote.add_connection(an)
    an.set_defaults(func=_remote(remote.analytics))

    curator = sub.add_parser("curator", help="the learning loop's Curator cycle")
    curator.add_argument("action", choices=["run"], help="run: a cycle for the agent now (resumes an interrupted one)")
    curator.add_argument("--agent", required=True)
    remote.add_connection(curator)
    curator.set_defaults(func=_remote(remote.learning))
    book = sub.add_parser("playbook", help="an agent's PLAYBOOK.md, rendered from the graph")
    book.add_argument("--agent", required=True)
    book.add_argument("--out", default=None, help="write it to this file (default: print it)")
    remote.add_connection(book)
    book.set_defaults(func=_remote(remote.learning))

    audit = sub.add_parser("audit", help="the audit trail: the questions of section 12.7")
    audit.add_argument("action", choices=["log", "recent", "forgotten", "reflection", "critical", "item", "fold",
                                          "archive"],
                       help="log: audit.log lines; recent: the newest records; forgotten: why X was forgotten "
                            "(--about); reflection: what one reflection did (--reflection); critical: has a "
                            "critical item ever changed; item: who changed an item (--item); fold: fold the months "
                            "older than the window into digests now; archive: audit-archive.md (12.6)")
    audit.add_argument("--agent", default=None, help="the agent (log and recent without it: every record, as JSON "
                                                     "lines; the other questions and archive need it)")
    audit.add_argument("--about", default=None)
    audit.add_argument("--reflection", default=None)
    audit.add_argument("--item", default=None)
    audit.add_argument("--verb", action="append", default=None, help="only these actions (CREATE, ARCHIVE, …)")
    audit.add_argument("--actor", default=None, help="a key id or an actor tag")
    audit.add_argument("--limit", type=int, default=50)
    remote.add_connection(audit)
    audit.set_defaults(func=_remote(remote.audit))

    context = sub.add_parser("context", help="the Context Governor: workspaces, feedback, the policy and its loops")
    context.add_argument("action", choices=["policy", "revisions", "delta", "assemble", "feedback", "recalibrate",
                                            "stage", "decisions", "beliefs", "mutations"],
                         help="policy: the policy now; revisions: every revision, newest first; delta: what moved "
                              "between --from and --to (default: the current); assemble: a workspace (--text: the "
                              "prompt only); feedback: a decision's outcome (Loop 1); recalibrate: Loop 2 now; "
                              "stage: Loop 3 now; decisions, beliefs, mutations: what the loops learned")
    context.add_argument("--agent", required=True)
    context.add_argument("--from", dest="from_revision", type=int, default=0)
    context.add_argument("--to", dest="to_revision", type=int, default=None)
    context.add_argument("--situation", default=None, help="assemble: a JSON file with the request "
                                                            "(POST …/context/assemble's body); flags override it")
    context.add_argument("--task", default=None)
    context.add_argument("--phase", default=None)
    context.add_argument("--regime", default=None)
    context.add_argument("--pad", default=None, help="pleasure,arousal,dominance")
    context.add_argument("--query", default=None)
    context.add_argument("--budget", type=int, default=None)
    context.add_argument("--tick", type=int, default=None)
    context.add_argument("--text", action="store_true", help="assemble: print the rendered prompt text only")
    context.add_argument("--assembly", default=None, help="feedback: the workspace's assembly_id")
    context.add_argument("--quality", type=float, default=None)
    context.add_argument("--cited", default=None, help="feedback: ids or refs, comma-separated")
    context.add_argument("--response", default=None)
    context.add_argument("--missing", action="append", default=None, help="feedback: a missing-context signal")
    context.add_argument("--cost", type=float, default=0.0)
    context.add_argument("--limit", type=int, default=50)
    remote.add_connection(context)
    context.set_defaults(func=_remote(remote.context))

    for name, text in (("config", "the settings (environment variables) as README's configuration table"),
                       ("routes", "the REST routes as README's route table"),
                       ("spec", "the documents' constants beside the code's, and where they differ, as README's "
                                "spec table")):
        p = sub.add_parser(name, help=text)
        p.add_argument("action", choices=["table"])
        p.add_argument("--write", action="store_true", help="rewrite the table in README.md instead of printing it")
        p.add_argument("--readme", default=None, help="the README file to rewrite (default: the project's)")
        p.set_defaults(func=cmd_readme_table)

    client = sub.add_parser("client", help="the clients' generated code (clients/python, clients/typescript)")
    client.add_argument("action", choices=["generate", "openapi"],
                        help="generate: the Python client's models and methods; openapi: the OpenAPI document the "
                             "TypeScript client is generated from (clients/typescript/openapi.json), then its types")
    client.add_argument("--write", action="store_true", help="rewrite clients/python/grimoire/client/models.py and "
                        "routes.py (or clients/typescript/openapi.json and src/schema.ts) instead of printing")
    client.set_defaults(func=cmd_client)

    for name, func, text in (("serve", cmd_serve, "serve the REST API"),
                             ("up", cmd_up, "start Neo4j (unless NEO4J_URI), apply the schema, serve")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--host", default=None)
        p.add_argument("--port", type=int, default=None)
        p.add_argument("--workers", type=int, default=None,
                       help="API processes (replicas) on this machine (default: GRIMOIRE_WORKERS, else one per core "
                            "as memory allows)")
        p.set_defaults(func=func)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.func not in (cmd_serve, cmd_up, cmd_mcp):  # a server's requests note their own channel
        channels.current.set(channels.Channel.cli)  # what this command changes is audited as the CLI's
    try:
        return args.func(args, get_settings())
    except (LocalServerError, SchemaMismatch, DatabaseUnavailable) as exc:
        print(f"grimoire: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
