"""Env-steps/s of a first-person level, observations on, per batch size.

Each batch size runs ``AutoReset(DiscreteActions(env))`` with a sticky random
agent as a jitted ``lax.scan`` of ``--steps`` steps of ``jax.vmap(env.step)``
(the same loop as ``jaxlab-demo``, recording nothing); every env's
RGB_INTERLEAVED frame rides in the scan carry, so all frames are rendered.
It reports the first call (compile + one run) and then the median and best
of ``--repeats`` timed runs (``block_until_ready``).

Usage::

    PYTHONPATH=. python benchmarks/first_person.py [--level nav_maze_static_01]
        [--batches 1,16,64] [--steps 20] [--repeats 5] [--action-repeat 4]
        [--width 96] [--height 72] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse

import jax

from jaxlab.bench.first_person import ACCELERATOR_BATCHES, CPU_BATCHES, add_run_arguments, make_env, measure_batch
from jaxlab.bench.timing import add_output_arguments, batch_sizes, device_and_date, finish, measure_rows

HEADER = ("| batch | compile + first call (s) | step (ms) | env-steps/s (median) | env-steps/s (best) "
          "| frames/s (median) |\n|---:|---:|---:|---:|---:|---:|")


def describe(args) -> str:
    """The section heading and setup lines of a run."""
    return (f"### {args.level} {args.width}x{args.height} RGB_INTERLEAVED, action_repeat {args.action_repeat} "
            f"— {device_and_date()}\n\n"
            f"jax {jax.__version__}; {args.steps} steps per timed scan, median/best of {args.repeats}; "
            f"random sticky agent over the 9 discrete actions with auto-reset; "
            f"frames/s = env-steps/s × action_repeat (physics frames; one render per env-step).")


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="nav_maze_static_01")
    ap.add_argument("--batches", default=None,
                    help="comma-separated batch sizes (default 1,16,64,256,1024,4096; +16384,65536 on a GPU)")
    add_run_arguments(ap)
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    batches = batch_sizes(args.batches, CPU_BATCHES, ACCELERATOR_BATCHES)

    env = make_env(args.level, args.width, args.height, args.action_repeat)
    head = describe(args)

    def frames(r: dict):
        rate = f"{r['median'] * args.action_repeat:,.0f}"
        return rate, f", {rate} frames/s"

    rows = [row for _, row in measure_rows(args, head, HEADER, batches,
                                           lambda batch: measure_batch(env, batch, args.steps, args.repeats),
                                           frames, step_digits=2, median_width=12)]
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()
