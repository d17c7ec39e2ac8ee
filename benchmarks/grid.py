"""Env-steps/s of a grid level with WORLD.RGB on, per batch size, side by side with dmlab2d.

Each batch size runs ``AutoReset(GridEnv(level))`` as a jitted ``lax.scan``
of ``--steps`` steps of ``jax.vmap(env.step)``; every step each env draws
uniform random actions on device (every action of the level's action spec:
pushbox's ``MOVE`` 0..4; ``n.move``, ``n.turn`` and the beams of multi-player
levels). The observations (``--observations``, default ``WORLD.RGB``) ride in
the scan carry, so every env's images are rendered at every step. Episodes
end and restart inside the scan (pushbox: after 120 frames or when solved).
It reports the first call (compile + one run) and then the median and best of
``--repeats`` timed runs (``block_until_ready``).

dmlab2d (the ``dmlab2d`` package, when importable) plays the same level in
the same process — pushbox, whose rules the differential test
``tests/test_grid_lab2d_diff.py`` checks step by step — one env with uniform
random MOVEs, asked for the same observations, for ``--dm-steps`` steps,
resets included (a new room each time, as its episodes end), ``--repeats``
times; the best run's rate is the reference (the fairest to dmlab2d on a
busy machine).

``--profile`` adds, per batch size, the time of the parts of a step (µs per
env-step): the frame alone (``advance``: moves, contacts, end; no reset, no
image), the frame under AutoReset (which computes a reset every step), a
reset alone (``init_state``: a map from the bank, or the generator with
``--layouts 0``, and the spawn) and the observations alone (rendered from a
grid changed every step, carried like the rollout's).

Usage::

    PYTHONPATH=. python benchmarks/grid.py [--level pushbox] [--batches 1,16,256,1024]
        [--observations WORLD.RGB,1.RGB] [--steps 100] [--repeats 5] [--dm-steps 3000]
        [--layouts 1024] [--profile] [--no-dmlab2d] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import statistics

import jax
import jax.numpy as jnp

from jaxlab.bench.grid import (ACCELERATOR_BATCHES, CPU_BATCHES, DM_STEPS, STEPS, dmlab2d_missing, dmlab2d_rate,
                               make_env, measure_batch)
from jaxlab.bench.timing import (add_output_arguments, batch_sizes, device_and_date, finish, initial_carry, log,
                                 measure_rows, timed, versus)
from jaxlab.demo.grid import random_actions
from jaxlab.grid import GridEnv
from jaxlab.kernels.grid.env import DEFAULT_LAYOUTS
from jaxlab.levels import lab2d as levels
from jaxlab.wrappers import AutoReset

HEADER = ("| batch | compile + first call (s) | step (ms) | env-steps/s (median) | env-steps/s (best) "
          "| × dmlab2d |\n|---:|---:|---:|---:|---:|---:|")


def profile(env: AutoReset, batch: int, steps: int, repeats: int) -> dict:
    """µs per env-step (median) of the parts of a step at ``batch``: 'advance' (the frame only),
    'autoreset' (the frame with a reset computed every step, no image), 'observe' (the observations
    of fixed states, once per step) and 'reset' (``init_state`` alone)."""
    grid_env = env.env
    layouts = 0 if grid_env.layouts is None else grid_env.layouts
    bare = AutoReset(GridEnv(grid_env.world, observations=(), layouts=layouts))
    states, _, key = initial_carry(env, batch)

    def scan(body, carry):
        return jax.jit(lambda c: jax.lax.scan(lambda c, _: (body(c), None), c, None, length=steps)[0]), carry

    def random_steps(step):
        """The scan body of ``step(state, actions) -> (state, ...)`` with uniform random actions."""
        def body(c):
            s, k = c
            k, ka = jax.random.split(k)
            return jax.vmap(step)(s, random_actions(env, ka, batch))[0], k
        return body

    def observe(c):
        s, _ = c
        s = s.replace(grid=jnp.roll(s.grid, 1, axis=-1))  # a new grid each step: nothing to hoist
        return s, jax.vmap(grid_env.observe)(s)            # the images ride in the carry, as in the rollout

    def reset(c):
        s, k = c
        k, kr = jax.random.split(k)
        return jax.vmap(grid_env.init_state)(jax.random.split(kr, batch)), k

    out = {}
    for name, body, carry in (("advance", random_steps(grid_env.advance), (states, key)),
                              ("autoreset", random_steps(bare.step), (states, key)),
                              ("observe", observe, (states, jax.vmap(grid_env.observe)(states))), ("reset", reset, (states, key))):
        run, carry = scan(body, carry)
        _, times = timed(run, carry, repeats)
        out[name] = 1e6 * statistics.median(times) / (steps * batch)
    return out


def describe(args, env, dm: dict | None, dm_note: str) -> str:
    """The section heading, setup lines and dmlab2d's rate of a run."""
    observations = ", ".join(env.observation_spec())
    grid = env.env.world
    layouts = env.env.layouts
    head = (f"### Grid: {args.level} {grid.height}x{grid.width}, {observations} — {device_and_date()}\n\n"
            f"jax {jax.__version__}; "
            f"{'`VmapAutoReset(GridEnv)` (resets only on steps where some env is done)' if args.batch_reset else '`AutoReset(GridEnv)`'}"
            f", uniform random actions drawn on device "
            f"({', '.join(sorted(env.action_spec()))}); "
            f"{'maps drawn from a bank of ' + str(layouts.size) + ' generated on device' if layouts is not None else 'generator run at every reset' if grid.spec.generator else 'fixed map'}; "
            f"{args.steps} steps per timed scan, median/best of {args.repeats}.")
    if dm:
        head += (f"\n\ndmlab2d {dm['version']} ({args.level}, one env, uniform random actions, "
                 f"{', '.join(dm['observations'])} requested, same process): **{dm['rate']:,.0f} steps/s**, "
                 f"the best of {len(dm['runs'])} runs of {dm['steps'] // len(dm['runs']):,} steps "
                 f"({', '.join(f'{r:,.0f}' for r in dm['runs'])}; {dm['resets']} resets included); "
                 f"× dmlab2d = jaxlab median / dmlab2d.")
    else:
        head += f"\n\ndmlab2d: not measured ({dm_note})."
    return head


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="pushbox", help=f"a built-in grid level ({', '.join(sorted(levels.MODULES))})")
    ap.add_argument("--batches", default=None,
                    help="comma-separated batch sizes (default 1,16,256,1024,4096; more on a GPU)")
    ap.add_argument("--observations", default="WORLD.RGB",
                    help="comma-separated observation names (default WORLD.RGB; e.g. WORLD.RGB,1.RGB)")
    ap.add_argument("--steps", type=int, default=STEPS, help=f"env steps per timed scan (default {STEPS})")
    ap.add_argument("--repeats", type=int, default=5, help="timed scans per batch size (default 5)")
    ap.add_argument("--layouts", type=int, default=DEFAULT_LAYOUTS,
                    help=f"generated maps per bank (default {DEFAULT_LAYOUTS}; 0: generate at every reset)")
    ap.add_argument("--dm-steps", type=int, default=DM_STEPS,
                    help=f"dmlab2d steps per run, resets included (default {DM_STEPS}; --repeats runs)")
    ap.add_argument("--no-dmlab2d", action="store_true", help="skip the dmlab2d measurement")
    ap.add_argument("--profile", action="store_true", help="also time the parts of a step per batch size")
    ap.add_argument("--batch-reset", action="store_true",
                    help="step the batch with VmapAutoReset (resets only when some env is done) instead of "
                         "vmap(AutoReset.step)")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    batches = batch_sizes(args.batches, CPU_BATCHES, ACCELERATOR_BATCHES)
    observations = tuple(o.strip() for o in args.observations.split(",") if o.strip())

    env = make_env(args.level, observations, args.layouts)
    dm, dm_note = None, dmlab2d_missing(args.level, args.no_dmlab2d)
    if not dm_note:
        dm = dmlab2d_rate(args.level, observations, args.dm_steps, args.repeats)
        log(f"dmlab2d {args.level}: {dm['rate']:,.0f} steps/s ({dm['resets']} resets)")

    head = describe(args, env, dm, dm_note)
    rows, notes = [], []
    for r, row in measure_rows(args, head, HEADER, batches,
                               lambda batch: measure_batch(env, batch, args.steps, args.repeats,
                                                           batch_reset=args.batch_reset),
                               versus(dm, "dmlab2d", 1)):
        rows.append(row)
        if args.profile:
            p = profile(env, r["batch"], args.steps, args.repeats)
            notes.append(f"- batch {r['batch']}: µs per env-step — frame only {p['advance']:.2f}, frame + AutoReset "
                         f"{p['autoreset']:.2f}, reset alone {p['reset']:.2f}, observations alone "
                         f"{p['observe']:.2f}; whole step {1e6 / r['median']:.2f}")
    if notes:
        notes = ["", "Profile (medians):", ""] + notes
        if args.markdown:
            print("\n".join(notes), flush=True)
    finish(args, head, HEADER, rows + notes)


if __name__ == "__main__":
    main()
