"""The console's vendored libraries are exactly what the manifest records (issue 21): each pinned package's files
with their sha256, its license beside them, and nothing else in the folder. `make vendor` refreshes them."""

from __future__ import annotations

import json

from grimoire.api.console.vendor import MANIFEST, PACKAGES, VENDOR, sha256


def test_the_manifest_matches_the_pinned_packages_and_the_files() -> None:
    manifest = json.loads(MANIFEST.read_text())
    assert set(manifest) == {p.name for p in PACKAGES}
    for package in PACKAGES:
        entry = manifest[package.name]
        assert entry["version"] == package.version and entry["license"] == package.license
        folder = VENDOR / package.name
        assert {f.name for f in folder.iterdir()} == set(entry["files"]), package.name  # nothing unrecorded
        for name, digest in entry["files"].items():
            assert sha256(folder / name) == digest, f"{package.name}/{name} differs from the manifest"
        assert any(name.startswith("LICENSE") for name in entry["files"]), f"{package.name} has no license file"


def test_every_license_is_a_permissive_one_the_project_may_ship() -> None:
    for package in PACKAGES:
        license_file = next(f for f in (VENDOR / package.name).iterdir() if f.name.startswith("LICENSE"))
        text = license_file.read_text()
        assert package.license in {"MIT", "0BSD"}
        expected = "Permission to use, copy, modify" if package.license == "0BSD" else "Permission is hereby granted"
        assert expected in text, package.name
