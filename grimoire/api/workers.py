"""How many API processes (replicas) one machine runs: `grimoire up --workers N`, default from its cores and memory.

Every replica is the whole service (its own model, driver, scheduler and Curator child); they share nothing but
Neo4j, so any of them answers any request (console sessions, events, leases and bookmarks live in the graph).
A replica is CPU-bound: embedding text and decoding rows take a core each while they run, so more replicas than
cores only queue work on the same cores; the sizing section of README.md gives the measured numbers."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Any

import uvicorn

from grimoire.graph.replica import usable_cores

GIB = 1024 ** 3
# What one replica holds resident, measured with `make up` on the default model: ~1.25 GB for the API process
# (the model through ONNX beside PyTorch, the driver, the app) and as much again for its Curator child while a
# cycle runs (GRIMOIRE_CURATOR_PROCESS); plus up to ~250 MiB of vectors held for exact rankings once a hundred agents
# have been served (graph/retrieval/config.py, exact_vectors_held).
REPLICA_BYTES = int(1.5 * GIB)
CURATOR_BYTES = int(1.25 * GIB)
RESERVE_BYTES = 1 * GIB  # the OS, the shell, a browser on the console


@dataclass(frozen=True)
class Machine:
    cores: int
    available_bytes: int  # memory free for the service now (MemAvailable), less what a local Neo4j will take

    @classmethod
    def here(cls, neo4j_bytes: int = 0) -> Machine:
        return cls(cores=usable_cores(), available_bytes=max(0, available_memory() - neo4j_bytes))


def available_memory() -> int:
    """MemAvailable from /proc/meminfo, bytes; the total from sysconf where there is none."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError):
        return 4 * GIB


def default_workers(machine: Machine, *, curator_process: bool = True) -> int:
    """One replica per core, as many as memory holds (never fewer than one)."""
    per_replica = REPLICA_BYTES + (CURATOR_BYTES if curator_process else 0)
    by_memory = (machine.available_bytes - RESERVE_BYTES) // per_replica
    return max(1, min(machine.cores, int(by_memory)))


def threads_per_worker(cores: int, workers: int) -> int:
    """The model runtime's threads in each replica: the cores shared out, at least one."""
    return max(1, cores // max(1, workers))


class TcpListener(uvicorn.Config):
    """uvicorn's config, its listener for several workers made a TCP socket by name. uvicorn binds that socket
    itself with `proto` left at 0; accepted connections inherit it, and asyncio turns Nagle's algorithm off
    (TCP_NODELAY) only for a socket that says IPPROTO_TCP. With Nagle on, every answer on a kept-alive
    connection waited ~40 ms for the client's delayed ACK (uvicorn issue #3149; measured here: a message needing
    no memory 48 ms with two workers, 6 ms with one). The same socket, its protocol stated."""

    def bind_socket(self) -> socket.socket:
        sock = super().bind_socket()
        if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.proto != socket.IPPROTO_TCP:
            tcp = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
            tcp.set_inheritable(True)
            return tcp
        return sock


def serve(app: str, *, host: str, port: int, workers: int, **options: Any) -> None:
    """`workers` processes answering on one socket, each building the app from the import string (a factory)."""
    from uvicorn.supervisors import Multiprocess

    config = TcpListener(app, factory=True, host=host, port=port, workers=workers, **options)
    Multiprocess(config, sockets=[config.bind_socket()]).run()
