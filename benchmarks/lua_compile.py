"""Seconds to compile a Lua level script into N episodes (host CPU).

Compiles ``jaxlab/levels/dmlab/lua/random_maze.lua`` (a new maze carved in
``start`` every episode) for ``--episodes`` episodes, ``--repeats`` times, and
reports the median and best wall time and the number of distinct episodes.

Usage::

    PYTHONPATH=. python benchmarks/lua_compile.py [--episodes 100] [--repeats 3]
        [--script PATH] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from compile_lua import compile_level
from jaxlab.bench.timing import append_section, device_and_date
from jaxlab.levels.dmlab.catalogue import MAP_DIR

DEFAULT_SCRIPT = MAP_DIR.parent / "lua" / "random_maze.lua"


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--script", default=str(DEFAULT_SCRIPT))
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--append", metavar="FILE", help="append a markdown section to FILE")
    args = ap.parse_args(argv)

    times, bank = [], None
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        bank = compile_level(args.script, episodes=args.episodes, seed=0)
        times.append(time.perf_counter() - t0)
    cells, pickups = np.asarray(bank.cells), np.asarray(bank.pickup_pos)
    distinct = len({c.tobytes() + p.tobytes() for c, p in zip(cells, pickups)})
    line = (f"| {Path(args.script).name} | {args.episodes} | {distinct} | {statistics.median(times):.2f} "
            f"| {min(times):.2f} | {1e3 * statistics.median(times) / args.episodes:.1f} |")
    head = (f"### compile_lua — {device_and_date()}\n\n"
            f"Median/best of {args.repeats} compiles (host CPU; Lua via lupa).\n\n"
            "| script | episodes | distinct | seconds (median) | seconds (best) | ms per episode |\n"
            "|---|---:|---:|---:|---:|---:|")
    print(head + "\n" + line)
    append_section(args, head + "\n" + line)


if __name__ == "__main__":
    main()
