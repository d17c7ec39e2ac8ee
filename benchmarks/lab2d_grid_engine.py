"""Env-steps/s of Lab2D levels on jaxlab's Lab2D grid engine (``jaxlab.kernels.lab2d_grid``) beside dmlab2d's,
same run.

- ``workshop`` (one player pushing boxes, zapping, planting; its text, three layer views and two tile-scene
  paintings observed every step): compiled from its Lua (``tests/grid/lab2d_grid_levels/workshop.lua``,
  state callbacks and all), as the tests play it against dmlab2d.
- ``meadow`` (four walkers on a torus, grass flowering with probability 0.1; its text and counts): the
  tests' Python over the kernel (``tests/grid/lab2d_grid_meadow.py``).
- ``pushbox``: dmlab2d's own, compiled from the installed package's scripts (its rooms from jaxlab's
  generator); beside it jaxlab's hand-written ``pushbox`` (``jaxlab.make("pushbox")``, its own observations).
- ``chase_eat``: dmlab2d's own, compiled from the package (``jaxlab.make("lab2d/chase_eat")``; no
  hand-written twin: jaxlab's ``jaxlab_predator_prey`` is another game). A foe ends most episodes early:
  dmlab2d counts the steps it played; jaxlab's batch steps every env all ``T`` steps (an ended episode's
  steps cost the kernel the same) and counts them all.
- ``commons_harvest``, ``clean_up``, ``running_with_scissors``: dmlab2d's own with their default settings (one
  player), compiled from the package (``jaxlab.make("lab2d/<name>")``), every action drawn uniformly within its
  range; ``<name> (hand-written)``: jaxlab's hand-written twin ``jaxlab_<name>`` with one player, the same
  actions and every observation on (another game with its own rules: see docs/grid.md), dmlab2d's figure
  beside it being dmlab2d's own level's.

jaxlab runs a jitted ``lax.scan`` of ``--steps`` steps of ``jax.vmap`` per batch size, uniform random
actions, every observation on; dmlab2d runs the Lua, one env, the same number of steps per episode (fewer
where it ends), every observation read each step. Reported: compile + first call, the median of ``--repeats`` timed runs,
env-steps/s and the ratio to dmlab2d's single env. ``--chunk N`` runs a batch as ``lax.map`` over chunks of
N envs (each chunk a ``vmap``) instead of one ``vmap``; ``--steps T`` plays episodes of T steps on both sides.

Usage::

    PYTHONPATH=. python benchmarks/lab2d_grid_engine.py [--batches 1,64,1024] [--repeats 3] [--chunk N] [--steps T]
        [--levels workshop,meadow,pushbox,chase_eat,commons_harvest,clean_up,running_with_scissors,...]
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxlab
from jaxlab.registry.dmlab2d_package import game_scripts

TESTS = Path(__file__).resolve().parent.parent / "tests" / "grid"
sys.path.insert(0, str(TESTS))

import lab2d_grid_meadow as meadow        # noqa: E402  (the tests' level module)
from lab2d_reference import action_spec, batched_play, dmlab2d_trajectory  # noqa: E402

#: the dmlab2d levels compiled from the installed package's scripts
PACKAGE_LEVELS = ("pushbox", "chase_eat", "commons_harvest", "clean_up", "running_with_scissors")
#: the package levels whose actions are all drawn within their ranges, and that have a hand-written twin
MULTI_ACTION = ("commons_harvest", "clean_up", "running_with_scissors")
LEVELS = ("workshop", "meadow", "pushbox", "pushbox (hand-written)", "chase_eat") + tuple(
    name for level in MULTI_ACTION for name in (level, f"{level} (hand-written)"))
STEPS = {"meadow": meadow.STEPS - 1, "workshop": 39, **{level: 40 for level in LEVELS if level not in ("workshop",
                                                                                                     "meadow")}}
WORKSHOP_ACTIONS = (5, 3, 2, 2, 2)   # MOVE, TURN, FORWARD, ZAP, PLANT: values 0 .. n - 1



def _batched(play, chunk):
    """``play`` over a batch: one ``vmap``, or ``lax.map`` over chunks of ``chunk`` envs."""
    if not chunk:
        return jax.jit(jax.vmap(play))
    return jax.jit(lambda *args: jax.lax.map(lambda one: play(*one), args, batch_size=chunk))


def _scan_env(env, names=("MOVE",)):
    """``play(key, actions int32[T, len(names)])`` of a hand-written jaxlab env (``reset``/``step`` with
    actions by name): the state after T steps."""
    def play(key, actions):
        state, _ = env.reset(key)
        step = lambda s, a: (env.step(s, {n: a[i] for i, n in enumerate(names)})[0], None)  # noqa: E731
        return jax.lax.scan(step, state, actions)[0]
    return play


def _player(level: str, batch: int, chunk: int):
    """(the batched play, its arguments) of ``batch`` episodes of ``level``."""
    steps = STEPS[level]
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    if level == "workshop":
        env = jaxlab.make(str(TESTS / "lab2d_grid_levels" / "workshop.lua"))
        actions = jax.random.randint(keys[0], (batch, steps, 5), 0, 5) % jnp.asarray(WORKSHOP_ACTIONS)
        return batched_play(env, list(env.action_spec()), chunk), (jnp.arange(batch, dtype=jnp.int32), actions)
    if level == "meadow":
        return _batched(meadow.play, chunk), (keys, jnp.full((batch,), 4, jnp.int32),
                                              jnp.full((batch,), 0.1, jnp.float32))
    if level.split(" ")[0] in MULTI_ACTION:   # one player: every action drawn within its range
        base = level.split(" ")[0]
        env = jaxlab.make(f"jaxlab_{base}", numPlayers=1) if level.endswith("(hand-written)") else \
            jaxlab.make(f"lab2d/{base}")
        spec = env.action_spec()
        low = jnp.asarray([int(v.minimum) for v in spec.values()])
        span = jnp.asarray([int(v.maximum) - int(v.minimum) + 1 for v in spec.values()])
        actions = low + jax.random.randint(keys[0], (batch, steps, len(spec)), 0, 1 << 20) % span
        if level.endswith("(hand-written)"):
            return _batched(_scan_env(env, list(spec)), chunk), (keys, actions)
        return batched_play(env, list(spec), chunk), (jnp.arange(batch, dtype=jnp.int32), actions)
    moves = jax.random.randint(keys[0], (batch, steps), 0, 5)
    if level in ("pushbox", "chase_eat"):
        env = jaxlab.make(f"lab2d/{level}")
        return batched_play(env, ["MOVE"], chunk), (jnp.arange(batch, dtype=jnp.int32), moves[..., None])
    return _batched(_scan_env(jaxlab.make("pushbox")), chunk), (keys, moves[..., None])


def _jaxlab(level: str, batch: int, repeats: int, chunk: int = 0):
    """(compile + first call s, median run s, env-steps per run) of ``batch`` episodes of ``level``."""
    run, args = _player(level, batch, chunk)
    start = time.perf_counter()
    jax.block_until_ready(run(*args))
    first = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(run(*args))
        times.append(time.perf_counter() - start)
    return first, statistics.median(times), batch * STEPS[level]


def _dmlab2d(level: str, repeats: int, episodes: int = 20) -> float:
    """dmlab2d's env-steps/s of one env playing ``episodes`` episodes (the best of ``repeats`` runs)."""
    folder = game_scripts() / "levels" if level.startswith(PACKAGE_LEVELS) else TESTS / "lab2d_grid_levels"
    name = level.split(" ")[0]
    settings = {"walkers": 4, "growth": 0.1} if level == "meadow" else {}
    spec = action_spec(folder, name, settings)
    rng = np.random.default_rng(0)
    best = 0.0
    for _ in range(repeats):
        start, played = time.perf_counter(), 0
        for e in range(episodes):
            actions = [{a: int(rng.integers(low, high + 1)) for a, (_, low, high) in spec.items()}
                       for _ in range(STEPS[level])]
            played += len(dmlab2d_trajectory(folder, name, settings=settings, seed=e, actions=actions)["rewards"])
        best = max(best, played / (time.perf_counter() - start))   # the steps played (an ended episode stops)
    return best


def main(argv=None):
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="1,64,1024")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunk", type=int, default=0, help="envs per vmapped chunk of a lax.map (0: one vmap)")
    parser.add_argument("--levels", default=",".join(LEVELS), help=f"comma-separated, of: {', '.join(LEVELS)}")
    parser.add_argument("--steps", type=int, default=0, help="steps per episode for every level (0: each level's own)")
    args = parser.parse_args(argv)
    if args.steps:
        STEPS.update({level: args.steps for level in STEPS})
    device = jax.devices()[0]
    name = f"{device.platform} ({platform.processor() or platform.machine()})"
    how = f", chunks of {args.chunk}" if args.chunk else ""
    print(f"### Lab2D grid engine against dmlab2d{how} — {name}, {date.today().isoformat()}\n")
    print("| level | batch | compile + first call (s) | env-steps/s | x dmlab2d (1 env) |")
    print("|---|---:|---:|---:|---:|")
    references = {}   # dmlab2d's rate by level name (a hand-written twin is beside its level's)
    for level in (name.strip() for name in args.levels.split(",")):
        base = level.split(" ")[0]
        reference = references[base] = references.get(base) or _dmlab2d(level, args.repeats)
        if not level.endswith("(hand-written)"):
            print(f"| {level} (dmlab2d) | 1 | — | {reference:,.0f} | 1.00 |", flush=True)
        for batch in (int(b) for b in args.batches.split(",")):
            first, median, steps = _jaxlab(level, batch, args.repeats, min(args.chunk, batch))
            rate = steps / median
            print(f"| {level} | {batch} | {first:.1f} | {rate:,.0f} | {rate / reference:.2f} |", flush=True)


if __name__ == "__main__":
    main()
