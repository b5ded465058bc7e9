"""Turning times into blocks: the daily blocktime tables, and Aave governance v3 executions on
Ethereum (the exact block at which a payload took effect)."""

from __future__ import annotations

import bisect
import csv
import json
from dataclasses import dataclass
from pathlib import Path

DAY = 86_400


class BlockClock:
    """Daily (unix time, block) points per chain; a time between two points is interpolated."""

    def __init__(self, folder: Path):
        self.points: dict[int, tuple[list[int], list[int]]] = {}
        for path in sorted(folder.glob("*.csv")):
            with path.open() as f:
                rows = sorted((int(r["timestamp"]), int(r["blocknumber"])) for r in csv.DictReader(f))
            self.points[int(path.stem)] = ([t for t, _ in rows], [b for _, b in rows])

    def covers(self, chain_id: int) -> bool:
        return chain_id in self.points

    def block_at(self, chain_id: int, unix: int) -> int:
        times, blocks = self.points[chain_id]
        i = bisect.bisect_right(times, unix)
        if i == 0:
            return blocks[0]
        if i == len(times):  # past the table: extend at the last day's rate
            rate = (blocks[-1] - blocks[-2]) / (times[-1] - times[-2])
            return int(blocks[-1] + rate * (unix - times[-1]))
        t0, t1, b0, b1 = times[i - 1], times[i], blocks[i - 1], blocks[i]
        return int(b0 + (b1 - b0) * (unix - t0) / (t1 - t0))


@dataclass(frozen=True)
class Execution:
    payload_id: int
    block: int
    executed_at: int           # unix seconds
    controller: str
    targets: tuple[str, ...]
    signatures: tuple[str, ...]
    creator: str


def executions(folder: Path) -> list[Execution]:
    """Executed payloads of every PayloadsController in the folder (events/ and payloads/ by address)."""
    out: list[Execution] = []
    for payloads_file in sorted((folder / "payloads").glob("*.json")):
        controller = payloads_file.stem
        payloads = json.loads(payloads_file.read_text())
        events_file = folder / "events" / payloads_file.name
        blocks = {int(e["args"]["payloadId"]): int(e["blockNumber"])
                  for e in json.loads(events_file.read_text()) if e["eventName"] == "PayloadExecuted"}
        for key, p in payloads.items():
            pid = int(p.get("id", key))
            if pid in blocks and p.get("executedAt"):
                actions = p.get("actions", [])
                out.append(Execution(pid, blocks[pid], int(p["executedAt"]), controller,
                                     tuple(a["target"] for a in actions), tuple(a["signature"] for a in actions),
                                     p.get("creator", "")))
    return sorted(out, key=lambda e: e.executed_at)


class ExecutionMatcher:
    """The last governance execution on a chain within `window` seconds before a time, if any:
    the address book is updated after the payload that changed the contracts has executed."""

    def __init__(self, chain_id: int, execs: list[Execution], window: int = DAY):
        self.chain_id = chain_id
        self.execs = execs
        self.times = [e.executed_at for e in execs]
        self.window = window

    def before(self, chain_id: int, unix: int) -> Execution | None:
        if chain_id != self.chain_id:
            return None
        i = bisect.bisect_right(self.times, unix)
        if i and unix - self.times[i - 1] <= self.window:
            return self.execs[i - 1]
        return None
