"""Env-steps/s of jaxlab's Lab2D grid engine (``jaxlab.kernels.lab2d_grid``) beside dmlab2d's, same run.

The levels are the two that the tests play against dmlab2d: ``workshop`` (one player pushing boxes,
zapping, planting; its text, three layer views and two tile-scene paintings observed every step) and
``meadow`` (four walkers on a torus, grass flowering with probability 0.1; its text and counts). jaxlab
runs each as the tests write it (``tests/grid/lab2d_grid_*.py``: the callbacks in Python over the
kernel), a jitted ``lax.scan`` of ``--steps`` steps of ``jax.vmap`` per batch size, uniform random
actions; dmlab2d runs the Lua (``tests/grid/lab2d_grid_levels``), one env, the same number of steps
per episode, every observation read each step. Reported: compile + first call, the median of
``--repeats`` timed runs, env-steps/s and the ratio to dmlab2d's single env. ``--chunk N`` runs a batch
as ``lax.map`` over chunks of N envs (each chunk a ``vmap``) instead of one ``vmap``.

Usage::

    PYTHONPATH=. python benchmarks/lab2d_grid_engine.py [--batches 1,64,1024] [--repeats 3] [--chunk N]
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

TESTS = Path(__file__).resolve().parent.parent / "tests" / "grid"
sys.path.insert(0, str(TESTS))

import lab2d_grid_meadow as meadow        # noqa: E402  (the tests' level modules)
import lab2d_grid_workshop as workshop    # noqa: E402
from lab2d_reference import dmlab2d_trajectory  # noqa: E402


def _batched(play, chunk):
    """``play`` over a batch: one ``vmap``, or ``lax.map`` over chunks of ``chunk`` envs."""
    if not chunk:
        return jax.jit(jax.vmap(play))
    return jax.jit(lambda *args: jax.lax.map(lambda one: play(*one), args, batch_size=chunk))


def _jaxlab(level: str, batch: int, repeats: int, chunk: int = 0):
    """(compile + first call s, median run s, env-steps per run) of ``batch`` episodes of ``level``."""
    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(batch))
    if level == "workshop":
        steps = workshop.STEPS - 1
        actions = jax.random.randint(jax.random.PRNGKey(1), (batch, steps, 5), 0, 5) % jnp.asarray([5, 3, 2, 2, 2])
        run = _batched(workshop.play, chunk)
        args = (keys, actions)
    else:
        steps = meadow.STEPS - 1
        run = _batched(meadow.play, chunk)
        args = (keys, jnp.full((batch,), 4, jnp.int32), jnp.full((batch,), 0.1, jnp.float32))
    start = time.perf_counter()
    jax.block_until_ready(run(*args))
    first = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(run(*args))
        times.append(time.perf_counter() - start)
    return first, statistics.median(times), batch * steps


def _dmlab2d(level: str, repeats: int, episodes: int = 20) -> float:
    """dmlab2d's env-steps/s of one env playing ``episodes`` episodes (the best of ``repeats`` runs)."""
    settings = {"walkers": 4, "growth": 0.1} if level == "meadow" else {}
    steps = (meadow if level == "meadow" else workshop).STEPS - 1
    rng = np.random.default_rng(0)
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        for e in range(episodes):
            actions = [{"MOVE": int(rng.integers(5)), "TURN": int(rng.integers(3)), "FORWARD": int(rng.integers(2)),
                        "ZAP": int(rng.integers(2)), "PLANT": int(rng.integers(2))} if level == "workshop" else {}
                       for _ in range(steps)]
            dmlab2d_trajectory(TESTS / "lab2d_grid_levels", level, settings=settings, seed=e, actions=actions)
        best = max(best, episodes * steps / (time.perf_counter() - start))
    return best


def main(argv=None):
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="1,64,1024")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunk", type=int, default=0, help="envs per vmapped chunk of a lax.map (0: one vmap)")
    args = parser.parse_args(argv)
    device = jax.devices()[0]
    name = f"{device.platform} ({platform.processor() or platform.machine()})"
    how = f", chunks of {args.chunk}" if args.chunk else ""
    print(f"### Lab2D grid engine against dmlab2d{how} — {name}, {date.today().isoformat()}\n")
    print("| level | batch | compile + first call (s) | env-steps/s | x dmlab2d (1 env) |")
    print("|---|---:|---:|---:|---:|")
    for level in ("workshop", "meadow"):
        reference = _dmlab2d(level, args.repeats)
        print(f"| {level} (dmlab2d) | 1 | — | {reference:,.0f} | 1.00 |", flush=True)
        for batch in (int(b) for b in args.batches.split(",")):
            first, median, steps = _jaxlab(level, batch, args.repeats, min(args.chunk, batch))
            rate = steps / median
            print(f"| {level} | {batch} | {first:.1f} | {rate:,.0f} | {rate / reference:.2f} |", flush=True)


if __name__ == "__main__":
    main()
