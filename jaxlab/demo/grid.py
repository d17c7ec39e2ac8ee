"""``jaxlab-demo --level <grid level>``: a batched random rollout of a grid world.

Runs ``batch`` copies of a built-in grid level (``pushbox``, ``jaxlab_commons_harvest``,
...) under ``jax.jit(jax.vmap(step))`` with AutoReset, every player acting
uniformly at random, times it after compilation and writes env 0's
``WORLD.RGB`` (``world.gif``) and player 1's egocentric view
(``player1_view.gif``).
"""
from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxlab
from jaxlab.demo.rollout import chunk_size, compile_timed, device_name, timed_chunks, upscale, write_gif
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
    """Jitted ``carry -> (carry, (world, view, reward))`` with carry = (states,
    key): ``chunk`` random steps; env 0's frames uint8[chunk, ...] and the
    reward summed over envs and players float32[chunk]."""
    step = jax.vmap(env.step)

    def body(carry, _):
        states, key = carry
        key, k = jax.random.split(key)
        states, ts = step(states, random_actions(env, k, batch))
        return (states, key), (ts.observation["WORLD.RGB"][0], ts.observation["1.RGB"][0], ts.reward.sum())

    return jax.jit(lambda carry: jax.lax.scan(body, carry, None, length=chunk))


def run(level: str, batch: int, steps: int, out: str, seed: int = 0) -> float:
    """Run the grid demo; returns env-steps/s (after compilation)."""
    env = AutoReset(jaxlab.make(level, observations=list(OBSERVATIONS)))
    print(f"jaxlab demo: {level} ({env.num_players} players), batch {batch}, {steps} steps on {device_name()}")
    chunk = chunk_size(steps)
    key, k_reset = jax.random.split(jax.random.PRNGKey(seed))
    rollout = make_rollout(env, chunk, batch)

    def start():
        states, _ = jax.jit(jax.vmap(env.reset))(jax.random.split(k_reset, batch))
        jax.block_until_ready(rollout((states, key)))
        return states

    states = compile_timed(start, chunk)
    _, traces, rate = timed_chunks(rollout, (states, key), steps, chunk, batch)
    total = sum(float(reward.sum()) for _, _, reward in traces)
    print(f"mean reward per env (all players): {total / batch:.3f}")
    for name, index in (("world.gif", 0), ("player1_view.gif", 1)):
        frames = np.concatenate([np.asarray(trace[index]) for trace in traces])
        write_gif(Path(out) / name, upscale(frames, GIF_SCALE), FRAME_MS, f"env 0 at {GIF_SCALE}x")
    return rate
