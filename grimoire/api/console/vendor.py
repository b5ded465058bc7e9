"""The console's front-end libraries, vendored: no page loads anything from another host.

Each package is fetched from the npm registry by `npm pack` at the pinned version (`make vendor`, which runs
`python -m grimoire.api.console.vendor`), and only the files the console serves are kept, with the package's license,
under api/console/static/vendor/<package>/. manifest.json records each package's version, licence and the
sha256 of every file; tests/unit/test_console_vendor.py checks the files against it. Running the service needs
neither Node nor the network."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

VENDOR = Path(__file__).resolve().parent / "static" / "vendor"
MANIFEST = VENDOR / "manifest.json"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    license: str
    files: tuple[str, ...]  # paths inside the npm tarball's package/ folder
    why: str


PACKAGES = (
    Package("htmx.org", "4.0.1", "0BSD", ("dist/htmx.min.js", "LICENSE"), "forms and partial page updates"),
    Package("uplot", "1.6.32", "MIT", ("dist/uPlot.iife.min.js", "dist/uPlot.min.css", "LICENSE"),
            "time series: the metrics, decay curves"),
    Package("chart.js", "4.6.1", "MIT", ("dist/chart.umd.min.js", "LICENSE.md"), "bars: counts, policy allocations"),
    Package("cytoscape", "3.34.4", "MIT", ("dist/cytoscape.min.js", "LICENSE"), "graphs: neighbourhoods, causal links"),
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(package: Package, into: Path, work: Path) -> dict[str, object]:
    """`npm pack` the package, keep its listed files, and say what was kept."""
    subprocess.run(["npm", "pack", f"{package.name}@{package.version}", "--silent", "--pack-destination", str(work)],
                   check=True, capture_output=True, text=True)
    tarball = next(work.glob(f"{package.name.replace('/', '-')}-{package.version}.tgz"))
    target = into / package.name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    with tarfile.open(tarball) as tar:
        for name in package.files:
            member = tar.extractfile(f"package/{name}")
            if member is None:
                raise FileNotFoundError(f"{package.name}@{package.version} has no {name}")
            (target / Path(name).name).write_bytes(member.read())
    return {"version": package.version, "license": package.license, "why": package.why,
            "tarball_sha256": sha256(tarball),
            "files": {Path(name).name: sha256(target / Path(name).name) for name in package.files}}


def main() -> int:
    VENDOR.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="grimoire-vendor-") as tmp:
        for i, package in enumerate(PACKAGES, start=1):
            print(f"[vendor {i}/{len(PACKAGES)}] {package.name}@{package.version}", flush=True)
            manifest[package.name] = fetch(package, VENDOR, Path(tmp))
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"[vendor] {MANIFEST}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
