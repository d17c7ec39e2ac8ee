"""Seconds to build a bank of many text games: generate, compile (numpy, moved to the device once per
field) and stack, per family and mixed.

Usage::

    PYTHONPATH=. python benchmarks/text_bank.py [--games 1000] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import time

from jaxlab.bank import Bank
from jaxlab.bench.timing import add_output_arguments, device_and_date, finish, log
from jaxlab.levels.text.compile_pool import compile_many, default_processes
from jaxlab.levels.text.generators import make_spec

#: family -> options of game i
FAMILIES = {
    "tw-coin_collector": lambda i: {"level": 1 + i % 50},
    "tw-treasure_hunter": lambda i: {"level": 1 + i % 30},
    "tw-simple": lambda i: {"rewards": ("dense", "balanced", "sparse")[i % 3], "goal": "detailed"},
    "tw-cooking": lambda i: {"recipe": 1 + i % 5, "take": i % 2, "go": (1, 6, 9, 12)[i % 4], "open": bool(i & 1),
                             "cook": bool(i & 2), "cut": bool(i & 4)},
}


def build(specs_of, processes=None) -> dict:
    """Seconds to generate, compile (in ``processes`` processes) and stack the games ``specs_of()`` makes."""
    t0 = time.perf_counter()
    specs = specs_of()
    t1 = time.perf_counter()
    games = [g for g, _ in compile_many(specs, processes)]
    t2 = time.perf_counter()
    Bank.stack(games)
    t3 = time.perf_counter()
    return {"n": len(specs), "generate": t1 - t0, "compile": t2 - t1, "stack": t3 - t2, "total": t3 - t0}


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="games per bank (default 1000)")
    ap.add_argument("--processes", type=int, default=None,
                    help="processes that compile (default: one per core; 1: serial)")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    rows = []
    cases = [(family, lambda f=family: [make_spec(f, i, **FAMILIES[f](i)) for i in range(args.games)])
             for family in FAMILIES]
    names = list(FAMILIES)
    cases.append(("mixed", lambda: [make_spec(names[i % 4], i, **FAMILIES[names[i % 4]](i // 4))
                                    for i in range(args.games)]))
    for name, specs_of in cases:
        log(f"{name} ...")
        r = build(specs_of, args.processes)
        rows.append(f"| {name} | {r['n']} | {r['generate']:.1f} | {r['compile']:.1f} | {r['stack']:.1f} "
                    f"| {r['total']:.1f} |")
        print(rows[-1], flush=True)
    head = (f"### Building a bank of {args.games} text games — {device_and_date()}\n\n"
            f"`benchmarks/text_bank.py`: seconds to generate the games, compile each (`compile_spec`: "
            f"arrays built in numpy, each field put on the device once; `compile_many` over "
            f"{args.processes or default_processes()} process(es)) and stack them into one bank.")
    header = "| games | count | generate (s) | compile (s) | stack (s) | total (s) |\n|---|---:|---:|---:|---:|---:|"
    if args.markdown:
        print(head + "\n\n" + header + "\n" + "\n".join(rows))
    finish(args, head, header, rows)


if __name__ == "__main__":
    main()
