"""Run every benchmark and write one JSON file each under bench/results/."""

from __future__ import annotations

import importlib
import sys
import time

from bench import BENCHMARKS
from bench.common import write_result


def main(names: list[str]) -> int:
    for i, name in enumerate(names or BENCHMARKS, start=1):
        print(f"[bench {i}/{len(names or BENCHMARKS)}] {name}", flush=True)
        started = time.perf_counter()
        result = importlib.import_module(f"bench.{name}").run()
        path = write_result(name, result)
        print(f"[bench] {name} done in {time.perf_counter() - started:.0f}s -> {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
