"""A contact sheet of DMLab-30's four PsychLab levels: one row per level, what a privileged player
sees over its first trial (fixation cross, study, delay, response screen, the hovered button's
colour, the next fixation), each frame labelled with its phase.

``python -m jaxlab.demo.psychlab30_sheet --out docs/images/dmlab30_psychlab.png``.
"""
from __future__ import annotations

import argparse

import imageio.v3 as iio
import jax
import jax.numpy as jnp
import numpy as np
from PIL import Image, ImageDraw

from jaxlab.kernels.psychlab.dmlab30_env import PsychlabScreenEnv
from jaxlab.levels.dmlab.dmlab30.psychlab_screen import PHASES, RESPOND

BACKGROUND = (24, 24, 28)
LABEL_PX = 14


def play(env: PsychlabScreenEnv, steps: int, seed: int):
    """The oracle playing each of ``env``'s levels once: (frames uint8[L, T, H, W, 3], phase, hovered,
    trial int32[L, T]), T = ``steps`` + 1."""
    def run(key, level):
        state = env.init_state(key, level)
        first = (env.observe(state)["RGB_INTERLEAVED"], state.phase, state.hovered, state.trial)

        def body(state, _):
            state, ts = env.step(state, env.oracle_action(state))
            return state, (ts.observation["RGB_INTERLEAVED"], state.phase, state.hovered, state.trial)

        rest = jax.lax.scan(body, state, None, length=steps)[1]
        return tuple(jnp.concatenate([f[None], r]) for f, r in zip(first, rest))

    keys = jax.random.split(jax.random.PRNGKey(seed), env.num_levels)
    out = jax.jit(jax.vmap(run))(keys, jnp.arange(env.num_levels))
    return tuple(np.asarray(a) for a in out)


def picks(phase: np.ndarray, hovered: np.ndarray, trial: np.ndarray, which: int = 0):
    """Step indices of trial ``which``: the first step of each phase it goes through, with the first
    hovered response step after the first response step, then the next trial's first step."""
    steps = np.flatnonzero(trial == which)
    chosen, seen = [], set()
    for s in steps:
        key = (int(phase[s]), bool(phase[s] == RESPOND and hovered[s] >= 0))
        if key not in seen:
            seen.add(key)
            chosen.append(int(s))
    after = np.flatnonzero(trial > which)
    return chosen + ([int(after[0])] if len(after) else [])


def sheet(width: int = 160, height: int = 120, steps: int = 200, seed: int = 0) -> np.ndarray:
    """uint8[H, W, 3]: a row per level of its labelled frames (``picks``)."""
    env = PsychlabScreenEnv(width=width, height=height, action_repeat=4)
    frames, phase, hovered, trial = play(env, steps, seed)
    rows = []
    for i, level in enumerate(env.levels):
        tiles = []
        for s in picks(phase[i], hovered[i], trial[i]):
            canvas = Image.new("RGB", (width, height + LABEL_PX), BACKGROUND)
            canvas.paste(Image.fromarray(frames[i, s]), (0, LABEL_PX))
            label = PHASES[phase[i, s]] + (" hovered" if phase[i, s] == RESPOND and hovered[i, s] >= 0 else "")
            ImageDraw.Draw(canvas).text((2, 1), f"{level[9:21]} {label}", fill=(230, 230, 230))
            tiles.append(np.pad(np.asarray(canvas), ((2, 2), (2, 2), (0, 0)), constant_values=BACKGROUND[0]))
        rows.append(np.concatenate(tiles, 1))
    wide = max(r.shape[1] for r in rows)
    return np.concatenate([np.pad(r, ((0, 0), (0, wide - r.shape[1]), (0, 0)), constant_values=BACKGROUND[0])
                           for r in rows], 0)


def main(argv=None) -> None:
    """Write the sheet to ``--out``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="docs/images/dmlab30_psychlab.png")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    iio.imwrite(args.out, sheet(seed=args.seed))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
