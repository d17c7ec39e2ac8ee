"""Env-steps/s of the memory-task suite's levels beside a fixed maze, one batch size, one run.

``nav_maze_static_01`` (DMLab's 9-action set over a compiled map, the baseline) first, then one level
per memory task (its ``_train`` level, ``_train_large`` for the two tasks without one, or the levels
given): ``VmapAutoReset(env)`` with uniform random float actions in [-1, 1] (every slot given each
step), as a jitted ``lax.scan`` of ``--steps`` steps, RGB_INTERLEAVED in the scan carry so every
frame is rendered (AvatarPosition and Score too). Every level is compiled first; then, ``--repeats``
rounds, each timing every level right after a scan of the maze, so that each ratio compares two
scans taken seconds apart (the machines are shared and their speed drifts). Reports the first call
(compile + one run), the median and best of the timed scans, and the median of the paired ratios.

Usage::

    PYTHONPATH=. python benchmarks/memorytasks.py [--batch 1024] [--levels a,b] [--steps 20] [--repeats 3]
        [--width 96] [--height 72] [--action-repeat 1] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import statistics
import time

import jax

from jaxlab.bench.memory import BASELINE, STEPS, default_levels, level_rollout, make_env
from jaxlab.bench.timing import add_output_arguments, device_and_date, finish, log
from jaxlab.levels.dmlab import memory

HEADER = ("| level | compile + first call (s) | step (ms) | env-steps/s (median) | env-steps/s (best) "
          "| × " + BASELINE + " |\n|---|---:|---:|---:|---:|---:|")


def prepare_level(level: str, args):
    """``(rollout, carry, compile_s)`` for ``level`` at ``args.batch``: the jitted scan, its carry after
    the first call, and that call's seconds (compile + one run)."""
    env = make_env(level, args.width, args.height, args.action_repeat)
    rollout, carry = level_rollout(env, args.batch, args.steps, args.seed)
    first, carry = timed_call(rollout, carry)
    return rollout, carry, first


def timed_call(rollout, carry):
    """``(seconds, carry)`` of one ``block_until_ready`` call of ``rollout``."""
    t0 = time.perf_counter()
    carry = jax.block_until_ready(rollout(carry))
    return time.perf_counter() - t0, carry


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=None, help="envs in parallel (default 1024 CPU, 16384 GPU)")
    ap.add_argument("--levels", default=None, help="comma-separated memory-task levels (default: one per task)")
    ap.add_argument("--steps", type=int, default=STEPS, help=f"env steps per timed scan (default {STEPS})")
    ap.add_argument("--repeats", type=int, default=3, help="timed scans per level (default 3)")
    ap.add_argument("--action-repeat", type=int, default=1, help="frames per step (dm_memorytasks' default 1)")
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--height", type=int, default=72)
    ap.add_argument("--seed", type=int, default=0)
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    args.batch = args.batch or (1024 if jax.default_backend() == "cpu" else 16384)
    levels = [n.strip() for n in args.levels.split(",")] if args.levels else default_levels()
    unknown = sorted(set(levels) - set(memory.all_level_names()))
    if unknown:
        ap.error(f"not memory-task levels: {', '.join(unknown)}")

    head = (f"### Memory-task suite, batch {args.batch}, {args.width}x{args.height} RGB_INTERLEAVED, "
            f"action_repeat {args.action_repeat} — {device_and_date()}\n\n"
            f"jax {jax.__version__}; `VmapAutoReset(env)`, uniform random float actions (the maze: its 9 "
            f"discrete actions), {args.steps} steps per timed scan, median/best of "
            f"{args.repeats} rounds; × maze: the median of paired ratios (each scan right after one of the maze).")
    order = [BASELINE] + levels
    prepared = {}
    for level in order:
        log(f"compiling {level} ...")
        prepared[level] = list(prepare_level(level, args))
    seconds = {level: [] for level in order}
    ratios = {level: [] for level in order}
    for round_ in range(args.repeats):
        log(f"round {round_ + 1}/{args.repeats} ...")
        for level in order:
            base_s, prepared[BASELINE][1] = timed_call(prepared[BASELINE][0], prepared[BASELINE][1])
            level_s, prepared[level][1] = timed_call(prepared[level][0], prepared[level][1])
            seconds[BASELINE].append(base_s)
            seconds[level].append(level_s)
            ratios[level].append(base_s / level_s)
    if args.markdown:
        print(head + "\n\n" + HEADER, flush=True)
    rows = []
    for level in order:
        median, best = statistics.median(seconds[level]), min(seconds[level])
        row = (f"| {level} | {prepared[level][2]:.1f} | {1e3 * median / args.steps:.2f} "
               f"| {args.batch * args.steps / median:,.0f} | {args.batch * args.steps / best:,.0f} "
               f"| {statistics.median(ratios[level]) if level != BASELINE else 1.0:.2f} |")
        print(row, flush=True)
        rows.append(row)
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()
