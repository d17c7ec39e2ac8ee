"""Env-steps/s of the memory-task suite's levels beside a fixed maze, one batch size, one run.

``nav_maze_static_01`` (DMLab's 9-action set over a compiled map, the baseline) first, then one level
per memory task (its ``_train`` level, ``_train_large`` for the two tasks without one, or the levels
given): ``VmapAutoReset(env)`` with uniform random float actions in [-1, 1] (every slot given each
step), as a jitted ``lax.scan`` of ``--steps`` steps, RGB_INTERLEAVED in the scan carry so every
frame is rendered (AvatarPosition and Score too). Reports the first call (compile + one run), the
median and best of ``--repeats`` timed runs, and the ratio to the maze.

Usage::

    PYTHONPATH=. python benchmarks/memorytasks.py [--batch 1024] [--levels a,b] [--steps 20] [--repeats 3]
        [--width 96] [--height 72] [--action-repeat 1] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp

from common import add_output_arguments, device_and_date, finish, initial_carry, log, make_rollout, measure

import jaxlab
from jaxlab.levels.dmlab import memory
from jaxlab.wrappers import DiscreteActions, VmapAutoReset

BASELINE = "nav_maze_static_01"
HEADER = ("| level | compile + first call (s) | step (ms) | env-steps/s (median) | env-steps/s (best) "
          "| × " + BASELINE + " |\n|---|---:|---:|---:|---:|---:|")


def default_levels():
    """One level per task: ``<task>_train`` (``_train_large`` where the task has no ``_train``)."""
    names = set(memory.all_level_names())
    return [f"{t}_train" if f"{t}_train" in names else f"{t}_train_large" for t in memory.TASK_NAMES]


def measure_level(level: str, args) -> dict:
    """A ``measure`` dict for ``level`` at ``args.batch``."""
    if level == BASELINE:
        env = DiscreteActions(jaxlab.make(level, width=args.width, height=args.height,
                                          observations=("RGB_INTERLEAVED",), action_repeat=args.action_repeat))

        def policy(key, _):
            return jax.random.randint(key, (args.batch,), 0, env.num_actions, dtype=jnp.int32)
    else:
        env = memory.make_env(level, width=args.width, height=args.height, action_repeat=args.action_repeat)

        def policy(key, _):
            return jax.random.uniform(key, (args.batch, 4), jnp.float32, -1.0, 1.0)
    carry = initial_carry(env, args.batch, args.seed)
    rollout = make_rollout(env, args.steps, policy, batched_step=VmapAutoReset(env).step)
    return measure(rollout, carry, args.batch, args.steps, args.repeats)


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=None, help="envs in parallel (default 1024 CPU, 16384 GPU)")
    ap.add_argument("--levels", default=None, help="comma-separated memory-task levels (default: one per task)")
    ap.add_argument("--steps", type=int, default=20, help="env steps per timed scan (default 20)")
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
            f"discrete actions), {args.steps} steps per timed scan, median/best of {args.repeats}.")
    if args.markdown:
        print(head + "\n\n" + HEADER, flush=True)
    rows, base = [], None
    for level in [BASELINE] + levels:
        log(f"{level} ...")
        r = measure_level(level, args)
        base = base or r["median"]
        row = (f"| {level} | {r['compile_s']:.1f} | {r['step_ms']:.2f} | {r['median']:,.0f} | {r['best']:,.0f} "
               f"| {r['median'] / base:.2f} |")
        print(row, flush=True)
        rows.append(row)
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()
