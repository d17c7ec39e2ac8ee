"""Env-steps/s of a level whose Lua callbacks run on the device, beside its static twin, in one run.

``benchmarks/lua/pickup_counter.lua`` counts pickups at play time (``pickup`` pays the running count,
``hasEpisodeFinished`` ends the episode after N pickups): both callbacks are translated into JAX and run
inside ``env.step``. ``benchmarks/lua/pickup_static.lua`` is the same map and pickups with a fixed
reward, its callbacks tabulated on the host. Each runs as ``AutoReset(DiscreteActions(env))`` with the
sticky random agent of ``benchmarks/first_person.py`` (frames rendered every step), per batch size, in
the same process; the ratio compiled / static is printed per batch.

Usage::

    PYTHONPATH=. python benchmarks/lua_playtime.py [--batches 256,1024] [--steps 20] [--repeats 5]
        [--width 96] [--height 72] [--action-repeat 4] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import jax

from jaxlab.bench.first_person import add_run_arguments, make_env, measure_batch
from jaxlab.bench.timing import add_output_arguments, batch_sizes, device_and_date, finish

LEVELS = Path(__file__).resolve().parent / "lua"
PLAYTIME, STATIC = LEVELS / "pickup_counter.lua", LEVELS / "pickup_static.lua"
HEADER = ("| batch | static twin env-steps/s | compiled callbacks env-steps/s | compiled / static "
          "| compile + first call (s), static / compiled |\n|---:|---:|---:|---:|---:|")


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", default=None, help="comma-separated batch sizes (default 256,1024; GPU: +16384)")
    add_run_arguments(ap)
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    batches = batch_sizes(args.batches, (256, 1024), (256, 1024, 16384))
    envs = {name: make_env(str(path), args.width, args.height, args.action_repeat)
            for name, path in (("static", STATIC), ("compiled", PLAYTIME))}
    head = (f"### Play-time Lua callbacks on the device beside their static twin — {device_and_date()}\n\n"
            f"jax {jax.__version__}; `benchmarks/lua/pickup_counter.lua` (pickup and hasEpisodeFinished "
            f"compiled into the kernel) vs `benchmarks/lua/pickup_static.lua` (tabulated); {args.width}x"
            f"{args.height} RGB_INTERLEAVED every step, action_repeat {args.action_repeat}, sticky random agent, "
            f"{args.steps} steps per timed scan, median of {args.repeats}, both measured per batch in one process.")
    rows = []
    if args.markdown:
        print(head + "\n\n" + HEADER, flush=True)
    for batch in batches:
        r = {name: measure_batch(env, batch, args.steps, args.repeats) for name, env in envs.items()}
        rows.append(f"| {batch} | {r['static']['median']:,.0f} | {r['compiled']['median']:,.0f} "
                    f"| {r['compiled']['median'] / r['static']['median']:.2f} "
                    f"| {r['static']['compile_s']:.1f} / {r['compiled']['compile_s']:.1f} |")
        if args.markdown:
            print(rows[-1], flush=True)
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()
