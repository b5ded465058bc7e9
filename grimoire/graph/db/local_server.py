"""A real Neo4j 5.26 server that the project runs itself, for machines without Docker.

The jars (server, Browser, GDS, APOC) come from Maven Central through pom.xml and are
cached once per pom under .neo4j/dist/<hash>/. Each server instance is a "home"
(conf/, data/, logs/, run/) that points at those shared jars, so tests can run a
throwaway server in a temporary folder on free ports beside the user's own.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[3]
POM = PROJECT_ROOT / "pom.xml"
DIST_ROOT = PROJECT_ROOT / ".neo4j" / "dist"
PLUGIN_GROUPS = "org.neo4j.gds,org.neo4j.procedure"
SUPPORTED_JAVA = (17, 21)

# The flags Neo4j's own launcher passes (server.jvm.additional in its default neo4j.conf).
JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
]

Log = Callable[[str], None]


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class LocalServerError(RuntimeError):
    """Something a user must fix; the message says what, and where the log is."""


# ---------------------------------------------------------------- Java and jars


def find_java(jvm_root: Path = Path("/usr/lib/jvm")) -> str:
    """A java executable of a version Neo4j 5.26 supports (17 or 21): JAVA_HOME, PATH, then jvm_root."""
    candidates: list[str] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(str(Path(os.environ["JAVA_HOME"]) / "bin" / "java"))
    on_path = shutil.which("java")
    if on_path:
        candidates.append(on_path)
    if jvm_root.is_dir():
        candidates += [str(jvm / "bin" / "java") for jvm in sorted(jvm_root.iterdir())]
    seen: list[str] = []
    for java in candidates:
        if not Path(java).exists():
            continue
        major = java_major_version(java)
        seen.append(f"{java} ({major})")
        if major in SUPPORTED_JAVA:
            return java
    if not seen:
        raise LocalServerError(
            "Java is missing: Neo4j 5.26 needs Java 17 or 21. Install it (on Debian: "
            "apt-get install openjdk-17-jre-headless) or set JAVA_HOME."
        )
    raise LocalServerError(
        f"No supported Java found: Neo4j 5.26 needs Java 17 or 21, found {', '.join(seen)}. Set JAVA_HOME."
    )


def java_major_version(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


def dist_dir(pom: Path = POM, root: Path = DIST_ROOT) -> Path:
    digest = hashlib.sha256(pom.read_bytes()).hexdigest()[:12]
    return root / digest


def resolve_jars(pom: Path = POM, log: Log = _stderr, root: Path = DIST_ROOT) -> Path:
    """Copy the server's jars to lib/ and the plugins' to plugins/, once per pom version."""
    target = dist_dir(pom, root)
    if (target / ".complete").exists():
        return target
    mvn = shutil.which("mvn")
    if not mvn:
        raise LocalServerError(
            "Maven is missing: it resolves Neo4j's jars from Maven Central. Install it "
            "(on Debian: apt-get install maven) or point NEO4J_URI at a running Neo4j."
        )
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    mvn_log = target.parent / "maven.log"
    steps = [
        ("server jars", target / "lib", f"-DexcludeGroupIds={PLUGIN_GROUPS}"),
        ("GDS and APOC plugins", target / "plugins", f"-DincludeGroupIds={PLUGIN_GROUPS}"),
    ]
    for what, out, selector in steps:
        log(f"[neo4j] resolving {what} from Maven Central (cached in ~/.m2) ...")
        cmd = [mvn, "-B", "-f", str(pom), "dependency:copy-dependencies", f"-DoutputDirectory={out}", selector]
        with mvn_log.open("a") as fh:
            proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, timeout=1800)
        if proc.returncode != 0:
            tail = _tail(mvn_log, 15)
            raise LocalServerError(
                f"Maven could not resolve the Neo4j {what}: {_maven_hint(tail)}\nLog: {mvn_log}\n{tail}"
            )
    count = len(list((target / "lib").glob("*.jar"))), len(list((target / "plugins").glob("*.jar")))
    log(f"[neo4j] {count[0]} server jars and {count[1]} plugin jars in {target}")
    (target / ".complete").write_text("ok\n")
    return target


def _maven_hint(log_tail: str) -> str:
    if any(m in log_tail for m in ("Could not transfer", "UnknownHost", "Connection refused", "timed out")):
        return "Maven Central is unreachable (check the network, or a mirror in ~/.m2/settings.xml)."
    if "Could not find artifact" in log_tail or "was not found" in log_tail:
        return "an artifact is missing on Maven Central (check the versions in pom.xml)."
    return "see the log."


# ---------------------------------------------------------------- sizing and ports


def machine_memory_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _mb(n: float) -> str:
    return f"{int(n // (1024 * 1024))}m"


def _megabytes(size: str) -> int:
    """Neo4j's memory notation ('2g', '512m', '1048576k') in MiB."""
    units = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}
    unit = size[-1].lower()
    return int(float(size[:-1]) * units[unit]) if unit in units else int(size) // (1024 * 1024)


def vector_population_buffer_mb(heap: str) -> int:
    """RAM for building a vector index from scratch: each time it fills, a segment is written (at
    Neo4j's 1 MB default, 20 segments for 100,000 vectors). An eighth of the heap, up to 512 MB."""
    return max(16, min(512, _megabytes(heap) // 8))


def default_memory() -> tuple[str, str]:
    """Heap and page cache for this machine: an eighth and a sixteenth, within sane bounds."""
    total = machine_memory_bytes()
    gib = 1024**3
    heap = min(max(total / 8, 0.5 * gib), 4 * gib)
    pagecache = min(max(total / 16, 0.25 * gib), 2 * gib)
    return _mb(heap), _mb(pagecache)


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(path: Path, lines: int) -> str:
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped) is not alive.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


# ---------------------------------------------------------------- the server


VECTOR_MERGE_FACTOR = 2


@dataclass
class LocalNeo4j:
    home: Path
    bolt_port: int = 7687
    http_port: int = 7474
    heap: str | None = None
    pagecache: str | None = None
    user: str = "neo4j"
    log: Log = field(default=_stderr, repr=False)

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/browser/"

    @property
    def password_file(self) -> Path:
        return self.home / "password"

    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "neo4j.pid"

    @property
    def log_file(self) -> Path:
        return self.home / "logs" / "neo4j.log"

    @property
    def console_log(self) -> Path:
        return self.home / "logs" / "console.log"

    @property
    def password(self) -> str:
        if not self.password_file.exists():
            raise LocalServerError(
                f"No password file at {self.password_file}: start the local server first "
                "(grimoire neo4j start), or set NEO4J_PASSWORD."
            )
        return self.password_file.read_text().strip()

    def memory_bytes(self) -> int:
        """What the server takes of the machine's memory: its heap and page cache (as configured or defaulted)."""
        heap, pagecache = default_memory()
        return (_megabytes(self.heap or heap) + _megabytes(self.pagecache or pagecache)) * 1024 * 1024

    # -- layout

    def write_config(self, dist: Path) -> Path:
        for sub in ("conf", "data", "logs", "run", "import"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        heap, pagecache = default_memory()
        heap = self.heap or heap
        pagecache = self.pagecache or pagecache
        conf = self.home / "conf" / "neo4j.conf"
        conf.write_text(
            "# Generated by Grimoire (graph/db/local_server.py); rewritten at every start.\n"
            "server.default_listen_address=127.0.0.1\n"
            "server.default_advertised_address=127.0.0.1\n"
            f"server.bolt.listen_address=127.0.0.1:{self.bolt_port}\n"
            f"server.http.listen_address=127.0.0.1:{self.http_port}\n"
            f"server.bolt.advertised_address=127.0.0.1:{self.bolt_port}\n"
            f"server.http.advertised_address=127.0.0.1:{self.http_port}\n"
            "server.bolt.tls_level=DISABLED\n"
            "server.http.enabled=true\n"
            "server.https.enabled=false\n"
            "dbms.security.auth_enabled=true\n"
            f"server.directories.lib={dist / 'lib'}\n"
            f"server.directories.plugins={dist / 'plugins'}\n"
            "dbms.security.procedures.unrestricted=gds.*,apoc.*\n"
            f"server.memory.heap.initial_size={heap}\n"
            f"server.memory.heap.max_size={heap}\n"
            f"server.memory.pagecache.size={pagecache}\n"
            "db.tx_log.rotation.retention_policy=2 files\n"
            "dbms.usage_report.enabled=false\n"
            # A vector index search visits every Lucene segment; Neo4j lets 50 of a size pile up
            # before merging them (data written in batches kept 20), this merges each pair, and
            # an index built from scratch (graph/schema.py rebuild) is written in few.
            f"internal.dbms.index.vector.standard_merge_factor={VECTOR_MERGE_FACTOR}\n"
            f"internal.dbms.index.vector.population_ram_buffer_size={vector_population_buffer_mb(heap)}\n"
        )
        return conf

    def _classpath(self, dist: Path) -> str:
        return f"{dist / 'plugins'}/*:{self.home / 'conf'}/*:{dist / 'lib'}/*"

    def _set_initial_password(self, java: str, dist: Path) -> None:
        """Before the very first start only; the password is kept readable by the user alone."""
        password = secrets.token_hex(16)  # never starts with "-", which the admin tool reads as a flag
        env = dict(os.environ, NEO4J_HOME=str(self.home), NEO4J_CONF=str(self.home / "conf"))
        cmd = [java, "-cp", f"{dist / 'lib'}/*", "org.neo4j.cli.AdminTool",
               "dbms", "set-initial-password", password]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise LocalServerError(f"Could not set the initial password:\n{proc.stdout}\n{proc.stderr}")
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(password + "\n")
        os.chmod(self.password_file, 0o600)

    # -- state

    def pid(self) -> int | None:
        if not self.pid_file.exists():
            return None
        try:
            pid = int(self.pid_file.read_text().strip())
        except ValueError:
            return None
        return pid if _pid_alive(pid) else None

    def bolt_answers(self, timeout: float = 5.0) -> bool:
        from neo4j import GraphDatabase
        from neo4j.exceptions import Neo4jError, ServiceUnavailable

        if not port_in_use(self.bolt_port):
            return False
        try:
            with GraphDatabase.driver(self.uri, auth=(self.user, self.password),
                                      connection_timeout=timeout) as drv:
                drv.verify_connectivity()
                drv.execute_query("RETURN 1", database_="neo4j")
            return True
        except (ServiceUnavailable, Neo4jError, OSError, LocalServerError):
            return False

    def status(self) -> dict[str, object]:
        pid = self.pid()
        return {
            "home": str(self.home),
            "pid": pid,
            "running": pid is not None,
            "bolt": self.uri,
            "bolt_answers": pid is not None and self.bolt_answers(),
            "browser": self.browser_url,
            "log": str(self.log_file),
        }

    # -- lifecycle

    def start(self, timeout: float = 180.0) -> LocalNeo4j:
        pid = self.pid()
        if pid is not None:
            if self.bolt_answers():
                self.log(f"[neo4j] reusing the server already running (pid {pid}) at {self.uri}")
                return self
            self.log(f"[neo4j] pid {pid} is running but Bolt does not answer yet; waiting")
            self._wait_for_bolt(pid, timeout)
            return self
        for name, port in (("Bolt", self.bolt_port), ("HTTP", self.http_port)):
            if port_in_use(port):
                raise LocalServerError(
                    f"Port {port} ({name}) is taken by another process. Stop it, or choose other "
                    f"ports with NEO4J_BOLT_PORT / NEO4J_HTTP_PORT (or point NEO4J_URI at that server)."
                )
        java = find_java()
        dist = resolve_jars(log=self.log)
        self.write_config(dist)
        first_start = not (self.home / "data" / "databases" / "system").exists()
        if first_start:
            self._set_initial_password(java, dist)
        elif not self.password_file.exists():
            raise LocalServerError(
                f"The database in {self.home / 'data'} exists but its password file is gone; "
                f"remove {self.home} to start afresh."
            )
        cmd = [java, "-cp", self._classpath(dist), *JVM_FLAGS]
        heap = self.heap or default_memory()[0]
        cmd += [f"-Xms{heap}", f"-Xmx{heap}", "org.neo4j.server.CommunityEntryPoint",
                f"--home-dir={self.home}", f"--config-dir={self.home / 'conf'}"]
        self.log(f"[neo4j] starting Neo4j in {self.home} (Bolt {self.bolt_port}, HTTP {self.http_port})")
        started = time.monotonic()
        with self.console_log.open("ab") as out:
            proc = subprocess.Popen(
                cmd, cwd=self.home, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )
        self.pid_file.write_text(f"{proc.pid}\n")
        self._wait_for_bolt(proc.pid, timeout, proc)
        self.log(f"[neo4j] up in {time.monotonic() - started:.1f}s at {self.uri}")
        return self

    def _wait_for_bolt(self, pid: int, timeout: float, proc: subprocess.Popen[bytes] | None = None) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            exited = proc.poll() is not None if proc else not _pid_alive(pid)
            if exited:
                self.pid_file.unlink(missing_ok=True)
                raise LocalServerError(
                    f"Neo4j exited during start-up. Log: {self.log_file}\n"
                    f"{_tail(self.log_file, 20) or _tail(self.console_log, 20)}"
                )
            if self.bolt_answers(timeout=2.0):
                return
            time.sleep(0.5)
        raise LocalServerError(f"Neo4j did not answer on {self.uri} within {timeout:.0f}s. Log: {self.log_file}")

    def stop(self, timeout: float = 60.0) -> bool:
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        self.log(f"[neo4j] stopping pid {pid}")
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _pid_alive(pid):
            _reap(pid)
            time.sleep(0.2)
        if _pid_alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            time.sleep(0.5)
        _reap(pid)
        self.pid_file.unlink(missing_ok=True)
        return True


def _reap(pid: int) -> None:
    """Collect the exit status when the server is our own child (tests), so it leaves no zombie."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)
