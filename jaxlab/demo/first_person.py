"""The first-person part of ``jaxlab-demo``: a batched sticky-random rollout of a maze, timed after
compilation; writes env 0's first-person view (``agent_view.gif``) and its path on the map
(``top_down.png``)."""
from __future__ import annotations

from pathlib import Path

import imageio.v3 as iio
import jax
import jax.numpy as jnp
import numpy as np

import jaxlab
from jaxlab.demo.rollout import chunk_size, compile_timed, device_name, timed_chunks, upscale, write_gif
from jaxlab.render.first_person.topdown import top_down
from jaxlab.wrappers import AutoReset, DiscreteActions

FRAME = "RGB_INTERLEAVED"
POS = "DEBUG.POS.TRANS"
STICKY_SWITCH_PROB = 0.25   # a random agent keeps its action ~4 steps, so the view moves meaningfully
GIF_SCALE = 4


def make_env(level: str, width: int = 96, height: int = 72, action_repeat: int = 4,
             observations=(FRAME, POS)):
    """``AutoReset(DiscreteActions(jaxlab.make(level, ...)))``: 9 discrete actions, endless episodes."""
    return AutoReset(DiscreteActions(jaxlab.make(level, width=width, height=height,
                                                 observations=tuple(observations),
                                                 action_repeat=action_repeat)))


def init_carry(env, batch: int, seed: int):
    """The scan carry of ``batch`` fresh episodes: (states, observations, actions int32[B], key, reward sum)."""
    key, k_reset, k_act = jax.random.split(jax.random.PRNGKey(seed), 3)
    states, ts = jax.jit(jax.vmap(env.reset))(jax.random.split(k_reset, batch))
    actions = jax.random.randint(k_act, (batch,), 0, env.num_actions, dtype=jnp.int32)
    return states, ts.observation, actions, key, jnp.float32(0.0)


def make_rollout(env, chunk: int, record: bool = True, switch_prob: float = STICKY_SWITCH_PROB):
    """A jitted ``carry -> (carry, trace)`` running ``chunk`` batched steps of a sticky random agent.

    Each step every env keeps its discrete action, or with ``switch_prob``
    draws a new one uniformly. Observations ride in the carry, so every env's
    frame is rendered every step (nothing is dead code). With ``record``,
    ``trace`` holds env 0's frames uint8[chunk, H, W, 3] and (x, y) positions
    float32[chunk, 2] (needs ``DEBUG.POS.TRANS``); else it is None.
    """
    step = jax.vmap(env.step)

    def body(carry, _):
        states, _, actions, key, total = carry
        key, k_switch, k_new = jax.random.split(key, 3)
        switch = jax.random.uniform(k_switch, actions.shape) < switch_prob
        new = jax.random.randint(k_new, actions.shape, 0, env.num_actions, dtype=jnp.int32)
        actions = jnp.where(switch, new, actions)
        states, ts = step(states, actions)
        trace = (ts.observation[FRAME][0], ts.observation[POS][0, :2]) if record else None
        return (states, ts.observation, actions, key, total + ts.reward.sum()), trace

    return jax.jit(lambda carry: jax.lax.scan(body, carry, None, length=chunk))


def _timeline(frames: np.ndarray) -> np.ndarray:
    """``frames`` [T, H, W, 3] (upscaled) with a timeline bar drawn along the bottom, in place."""
    bar = max(GIF_SCALE - 1, 2)
    total = max(len(frames) - 1, 1)
    for t, img in enumerate(frames):
        img[-bar:, : round(img.shape[1] * t / total)] = (255, 200, 0)
    return frames


def run(args) -> float:
    """Run the first-person demo with parsed ``jaxlab-demo`` options; returns env-steps/s."""
    env = make_env(args.level, args.width, args.height, args.action_repeat)
    print(f"jaxlab demo: {args.level} {args.width}x{args.height}, action_repeat {args.action_repeat}, "
          f"batch {args.batch}, {args.steps} steps on {device_name()}")

    chunk = chunk_size(args.steps)

    def start():
        carry = jax.block_until_ready(init_carry(env, args.batch, args.seed))
        return carry, make_rollout(env, chunk).lower(carry).compile()

    carry, rollout = compile_timed(start, chunk)
    start_state = jax.tree_util.tree_map(lambda a: np.asarray(a[0]), carry[0])
    frames, positions = [np.asarray(carry[1][FRAME][0])], [np.asarray(carry[1][POS][0, :2])]
    carry, traces, rate = timed_chunks(rollout, carry, args.steps, chunk, args.batch)
    print(f"= {rate * args.action_repeat:,.0f} frames/s; mean reward per env: {float(carry[4]) / args.batch:.3f}")

    frames = np.concatenate([np.stack(frames)] + [np.asarray(f) for f, _ in traces])
    positions = np.concatenate([np.stack(positions)] + [np.asarray(p) for _, p in traces])
    out = Path(args.out)
    frame_ms = int(round(1000 * args.action_repeat / env.fps))
    write_gif(out / "agent_view.gif", _timeline(upscale(frames, GIF_SCALE)), frame_ms,
              f"env 0's view at {GIF_SCALE}x")

    level = jax.tree_util.tree_map(np.asarray, env.level(start_state))
    goal_pos = level.goal_choice_pos[int(start_state.goal_choice)]
    png_path = out / "top_down.png"
    iio.imwrite(png_path, top_down(level, trajectory=positions, goal_pos=goal_pos, cell_px=24))
    print(f"wrote {png_path} (env 0's trajectory)")
    return rate
