"""``jaxlab-demo --level <grid level>``: a batched random rollout of a grid world.

Runs ``batch`` copies of a built-in grid level (``pushbox``, ``commons_harvest``,
...) under ``jax.jit(jax.vmap(step))`` with AutoReset, every player acting
uniformly at random, times it after compilation and writes env 0's
``WORLD.RGB`` (``world.gif``) and player 1's egocentric view
(``player1_view.gif``).
"""
from __future__ import annotations

import time
from pathlib import Path

import imageio.v3 as iio
import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm

import jaxlab
from jaxlab.demo.cli import chunk_size
from jaxlab.wrappers import AutoReset

OBSERVATIONS = ("WORLD.RGB", "1.RGB")
GIF_SCALE = 3
FRAME_MS = 100


def random_actions(env, key: jax.Array, batch: int):
    """dict name -> int32[batch]: every action of ``env`` drawn uniformly in its range."""
    specs = sorted(env.action_spec().items())
    keys = jax.random.split(key, len(specs))
    return {name: jax.random.randint(k, (batch,), spec.minimum, spec.maximum + 1, jnp.int32)
            for k, (name, spec) in zip(keys, specs)}


def make_rollout(env, chunk: int, batch: int):
    """Jitted ``(states, key) -> ((states, key), (world, view, reward))``: ``chunk``
    random steps; env 0's frames uint8[chunk, ...] and the summed reward float32[chunk]."""
    step = jax.vmap(env.step)

    def body(carry, _):
        states, key = carry
        key, k = jax.random.split(key)
        states, ts = step(states, random_actions(env, k, batch))
        return (states, key), (ts.observation["WORLD.RGB"][0], ts.observation["1.RGB"][0], ts.reward.sum())

    return jax.jit(lambda states, key: jax.lax.scan(body, (states, key), None, length=chunk))


def run(level: str, batch: int, steps: int, out: str, seed: int = 0) -> float:
    """Run the grid demo; returns env-steps/s (after compilation)."""
    env = AutoReset(jaxlab.make(level, observations=list(OBSERVATIONS)))
    device = jax.devices()[0]
    print(f"jaxlab demo: {level} ({env.num_players} players), batch {batch}, {steps} steps on "
          f"{device.platform} ({device.device_kind})")
    chunk = chunk_size(steps)
    key, k_reset = jax.random.split(jax.random.PRNGKey(seed))
    t0 = time.perf_counter()
    states, _ = jax.jit(jax.vmap(env.reset))(jax.random.split(k_reset, batch))
    rollout = make_rollout(env, chunk, batch)
    jax.block_until_ready(rollout(states, key))
    print(f"compile: {time.perf_counter() - t0:.1f} s (reset + a {chunk}-step scan chunk)")
    worlds, views, total = [], [], 0.0
    t0 = time.perf_counter()
    with tqdm(total=steps, unit="step", desc="rollout") as bar:
        for _ in range(steps // chunk):
            (states, key), (world, view, reward) = rollout(states, key)
            jax.block_until_ready(states)
            worlds.append(world)
            views.append(view)
            total += float(reward.sum())
            bar.update(chunk)
    seconds = time.perf_counter() - t0
    rate = steps * batch / seconds
    print(f"rollout: {steps} steps x {batch} envs in {seconds:.2f} s -> {rate:,.0f} env-steps/s "
          f"on {device.device_kind}")
    print(f"mean reward per env (all players): {total / batch:.3f}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, frames in (("world.gif", worlds), ("player1_view.gif", views)):
        frames = np.concatenate([np.asarray(f) for f in frames])
        frames = frames.repeat(GIF_SCALE, axis=1).repeat(GIF_SCALE, axis=2)
        iio.imwrite(folder / name, frames, duration=FRAME_MS, loop=0)
        print(f"wrote {folder / name} ({len(frames)} frames of env 0 at {GIF_SCALE}x)")
    return rate
