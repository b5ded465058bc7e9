"""docker-compose.yml's `cluster` profile (issue 37, section 8) is coherent: no Docker engine here runs it, so what
can be checked without one is: three primaries that find each other, each advertising itself; API replicas on the
routing URI with one admin key; one port in front of every replica, streams unbuffered."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _services() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    return services


def test_the_default_profile_is_unchanged() -> None:
    services = _services()
    assert "profiles" not in services["neo4j"] and "profiles" not in services["api"]
    assert services["api"]["environment"]["NEO4J_URI"] == "bolt://neo4j:7687"


def test_three_primaries_that_find_each_other() -> None:
    services = _services()
    cores = {name: s for name, s in services.items() if name.startswith("core")}
    assert sorted(cores) == ["core1", "core2", "core3"]
    for name, core in cores.items():
        env = core["environment"]
        assert core["profiles"] == ["cluster"] and "enterprise" in core["image"]
        assert env["NEO4J_initial_dbms_default__primaries__count"] == "3"
        assert env["NEO4J_initial_server_mode__constraint"] == "PRIMARY"
        assert env["NEO4J_dbms_cluster_discovery_endpoints"].split(",") == [f"{c}:5000" for c in sorted(cores)]
        for key in ("bolt", "routing", "cluster", "discovery"):
            assert env[f"NEO4J_server_{key}_advertised__address"].split(":")[0] == name, (name, key)
        assert core["volumes"] == [f"{name}-data:/data"]
        assert env["NEO4J_dbms_security_procedures_unrestricted"] == "gds.*,apoc.*"


def test_replicas_on_the_routing_uri_behind_one_port() -> None:
    services = _services()
    replicas = {name: s for name, s in services.items() if re.fullmatch(r"api\d+", name)}
    assert len(replicas) >= 2
    for replica in replicas.values():
        env = replica["environment"]
        assert replica["profiles"] == ["cluster"]
        assert env["NEO4J_URI"].startswith("neo4j://")  # the routing driver: reads may go to any member
        assert "GRIMOIRE_ADMIN_KEY" in env and "--workers" in replica["command"]
    assert len({r["environment"]["GRIMOIRE_ADMIN_KEY"] for r in replicas.values()}) == 1
    conf = (ROOT / "deploy" / "nginx-cluster.conf").read_text()
    assert set(re.findall(r"server (api\d+):8000", conf)) == set(replicas)
    assert "proxy_buffering off" in conf  # SSE and MCP streams
    assert services["lb"]["ports"] == ["127.0.0.1:8080:8080"]
