"""Env-steps/s of the DMLab-30 levels and of a suite mixing them, beside a fixed maze.

One batch size, every level in one run so the figures sit side by side on the
same (shared, noisy) machine: ``nav_maze_static_01`` (a compiled map from a
bank, the baseline), then each DMLab-30 level (generated on device, or a PsychLab screen), then ``jaxlab.suite``
over all of them (one batch in which env i runs level i mod n). Each runs
``VmapAutoReset(DiscreteActions(env))`` with uniform random actions as a
jitted ``lax.scan`` of ``--steps`` steps; every env's RGB_INTERLEAVED frame
rides in the scan carry, so all frames are rendered. Episodes start together,
so the timed steps measure stepping and rendering (and, for levels that
re-deal their map at restarts, that re-deal, which runs every step); drawing
new episodes is timed apart: ``reset`` of the whole batch, as episodes per
second. Reports the first call (compile + one run), the median and best
of ``--repeats`` timed runs, and the speed beside the baseline twice: the ratio
of the two medians, and the median ratio of ``--pairs`` back-to-back pairs of
calls (baseline, level), which holds when the machine's speed drifts.

Usage::

    PYTHONPATH=. python benchmarks/dmlab30.py [--batch 1024] [--levels a,b] [--no-suite] [--whole-suite]
        [--steps 20] [--repeats 3] [--pairs 7] [--width 96] [--height 72] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import statistics

import jax
import jax.numpy as jnp

import jaxlab
from jaxlab.bench.timing import (add_output_arguments, device_and_date, finish, initial_carry, log, make_rollout,
                                 measure, paired_speed, timed)
from jaxlab.levels.dmlab import dmlab30
from jaxlab.levels.dmlab.dmlab30.psychlab import SCREEN_LEVELS
from jaxlab.wrappers import DiscreteActions, VmapAutoReset

FRAME = "RGB_INTERLEAVED"
BASELINE = "nav_maze_static_01"
SUITE = "suite (all of the above, mixed)"
HEADER = ("| level | compile + first call (s) | step (ms) | env-steps/s (median) | env-steps/s (best) "
          "| × " + BASELINE + " (medians) | × " + BASELINE + " (paired) | new episodes/s |"
          "\n|---|---:|---:|---:|---:|---:|---:|---:|")


def build(level: str, args):
    """``DiscreteActions`` over the level's env (``SUITE``: a suite of the levels)."""
    settings = dict(width=args.width, height=args.height, observations=(FRAME,), action_repeat=args.action_repeat)
    if level == SUITE:
        return DiscreteActions(jaxlab.suite("dmlab30" if args.whole_suite else args.generated, **settings))
    return DiscreteActions(jaxlab.make(level, **settings))


def measure_level(level: str, args) -> dict:
    """A ``measure`` dict for ``level`` at ``args.batch``, with its new episodes/s (``"episodes"``) and the
    compiled rollout and its carry (``"run"``, ``"carry"``) for paired timings."""
    env = build(level, args)
    batched = VmapAutoReset(env)
    carry = initial_carry(env, args.batch, args.seed)

    def policy(key, _):
        return jax.random.randint(key, (args.batch,), 0, env.num_actions, dtype=jnp.int32)

    rollout = make_rollout(env, args.steps, policy, batched_step=batched.step)
    result = measure(rollout, carry, args.batch, args.steps, args.repeats)
    reset = jax.jit(batched.reset)
    keys = jax.random.split(jax.random.PRNGKey(args.seed + 1), args.batch)
    _, times = timed(lambda k: (jax.block_until_ready(reset(k)), k)[1], keys, args.repeats)
    result["episodes"] = args.batch / statistics.median(times)
    result["run"], result["carry"] = rollout, carry
    return result


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=None, help="envs in parallel (default 1024 CPU, 16384 GPU)")
    ap.add_argument("--levels", default=None, help="comma-separated DMLab-30 levels (default: every one built)")
    ap.add_argument("--no-suite", action="store_true", help="leave out the mixed suite")
    ap.add_argument("--whole-suite", action="store_true",
                    help="the suite row runs jaxlab.suite('dmlab30'), all its levels, whatever --levels lists")
    ap.add_argument("--steps", type=int, default=20, help="env steps per timed scan (default 20)")
    ap.add_argument("--repeats", type=int, default=3, help="timed scans per level (default 3)")
    ap.add_argument("--pairs", type=int, default=7, help="back-to-back (baseline, level) pairs timed (default 7)")
    ap.add_argument("--action-repeat", type=int, default=4)
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--height", type=int, default=72)
    ap.add_argument("--seed", type=int, default=0)
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    args.batch = args.batch or (1024 if jax.default_backend() == "cpu" else 16384)
    built = sorted(set(dmlab30.generators()) | set(SCREEN_LEVELS))
    args.generated = [n.strip() for n in args.levels.split(",")] if args.levels else built
    unknown = sorted(set(args.generated) - set(built))
    if unknown:
        ap.error(f"not DMLab-30 levels jaxlab has: {', '.join(unknown)} (built: {', '.join(built)})")
    levels = [BASELINE] + args.generated + ([] if args.no_suite else [SUITE])

    head = (f"### DMLab-30 levels, batch {args.batch}, {args.width}x{args.height} {FRAME}, "
            f"action_repeat {args.action_repeat} — {device_and_date()}\n\n"
            f"jax {jax.__version__}; `VmapAutoReset(DiscreteActions(env))`, uniform random actions, episodes "
            f"started together; {args.steps} steps per timed scan, median/best of {args.repeats}; paired: median over "
            f"{args.pairs} back-to-back calls of the baseline and the level; the suite: "
            f"{'all of DMLab-30' if args.whole_suite else 'the levels above'}, each env drawing its level per "
            f"episode; new episodes/s: `reset` of the whole batch (level drawn + first "
            f"frame), median of {args.repeats}.")
    if args.markdown:
        print(head + "\n\n" + HEADER, flush=True)
    rows, base = [], None
    for level in levels:
        log(f"{level} ...")
        r = measure_level(level, args)
        base = base or r
        paired = paired_speed(base["run"], base["carry"], r["run"], r["carry"], args.pairs)
        label = f"jaxlab.suite('dmlab30'), {len(dmlab30.TRAIN_LEVELS)} levels mixed" if (
            level == SUITE and args.whole_suite) else level
        row = (f"| {label} | {r['compile_s']:.1f} | {r['step_ms']:.2f} | {r['median']:,.0f} | {r['best']:,.0f} "
               f"| {r['median'] / base['median']:.2f} | {paired:.2f} | {r['episodes']:,.0f} |")
        print(row, flush=True)
        rows.append(row)
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()
