"""This process's name among the service's replicas: host, pid and a random part, made once per process (a forked
or spawned worker makes its own). Leases name their holder with it, responses carry it (X-Grimoire-Replica) and
/health reports it, so a person can tell which replica answered."""

from __future__ import annotations

import os
import secrets
import socket

_made: tuple[int, str] | None = None


def replica_id() -> str:
    global _made
    pid = os.getpid()
    if _made is None or _made[0] != pid:
        _made = (pid, f"{socket.gethostname()}:{pid}:{secrets.token_hex(3)}")
    return _made[1]


def usable_cores() -> int:
    """The cores this process may run on (its affinity: a container's cpuset), not the host's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
