"""A laser-tag match as a GIF: the agent's view beside a top-down map of every player and the shots.

The agent plays ``agents.scripted.aim_and_fire`` against the level's bots
(skill 4); the top-down map shows each player in its colour (a ring while
tagged), the shots of the last frame of each agent step in their gadget's
colour, and a red ring around a player tagged then; the scores run along the
bottom. ``python -m jaxlab.demo.lasertag_match [--level NAME] [--seed N]``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import jax
import numpy as np
from PIL import Image, ImageDraw

import jaxlab
from jaxlab.agents.scripted import aim_and_fire
from jaxlab.demo.rollout import upscale, write_gif
from jaxlab.render.first_person.topdown import top_down
from jaxlab.render.first_person.topdown_arena import draw_players


def play(env, key, steps: int):
    """``steps`` agent steps of ``env`` (a laser-tag level) with the agent aiming and firing.
    Returns (states: the host copies of each step's state, frames uint8[T, H, W, 3] the agent's views)."""
    def one(state, _):
        act = aim_and_fire(env.level(state), state, env.action_repeat)
        state, ts = env.step(state, act)
        return state, (state, ts.observation["RGB_INTERLEAVED"])

    state, _ = env.reset(key)
    _, (states, frames) = jax.jit(lambda s: jax.lax.scan(one, s, None, length=steps))(state)
    return jax.device_get(states), np.asarray(frames)


def caption(text: str, width: int, height: int = 14) -> np.ndarray:
    """uint8[height, width, 3]: ``text`` in white on black (pillow's default font)."""
    image = Image.new("RGB", (width, height))
    ImageDraw.Draw(image).text((2, 1), text, fill=(255, 255, 255))
    return np.asarray(image)


def match_frames(env, states, views, scale: int = 3) -> np.ndarray:
    """uint8[T, H, W, 3]: each step's view (upscaled ``scale``x) beside the top-down map, scores below."""
    out = []
    for t in range(len(views)):
        state = jax.tree_util.tree_map(lambda a: a[t], states)
        level, arena = state.episode_level, state.arena
        rows = int(level.rows)
        view = upscale(views[t][None], scale)[0]
        cell_px = max(view.shape[0] // rows, 4)
        img = top_down(level, pickup_present=(state.pickup_wait == 0), cell_px=cell_px)
        pos = np.concatenate([np.asarray(state.pos)[None], arena.pos])
        yaw = np.concatenate([np.asarray(state.yaw)[None], arena.yaw])
        draw_players(img, rows, cell_px, pos, yaw, arena.look, arena.up, arena.playing, arena.shot_from,
                     arena.shot_to, arena.fired, arena.shot_gadget, arena.tagged_by)
        height = max(view.shape[0], img.shape[0])
        pad = [np.pad(a, ((0, height - a.shape[0]), (0, 4), (0, 0))) for a in (view, img)]
        row = np.concatenate(pad, 1)
        scores = "  ".join(f"P{i}:{int(s)}" for i, s in enumerate(arena.score) if arena.playing[i])
        out.append(np.concatenate([row, caption(f"t={int(state.frames) / env.fps:5.1f}s  {scores}", row.shape[1])], 0))
    return np.stack(out)


def main(argv=None) -> None:
    """Write the match GIF (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m jaxlab.demo.lasertag_match", description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="lasertag_three_opponents_small")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=240, help="agent steps (4 frames each)")
    ap.add_argument("--out", default="out/lasertag_match.gif")
    ap.add_argument("--stills", help="also write a PNG of four moments of the match here")
    args = ap.parse_args(argv)
    env = jaxlab.make(args.level, width=96, height=72, action_repeat=4)
    states, views = play(env, jax.random.key(args.seed), args.steps)
    frames = match_frames(env, states, views)
    write_gif(Path(args.out), frames, 66, f"{args.level}, seed {args.seed}, final scores {states.arena.score[-1]}")
    if args.stills:
        moments = frames[np.linspace(len(frames) // 8, len(frames) - 1, 4).astype(int)]
        Path(args.stills).parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.concatenate([np.concatenate(moments[:2], 1), np.concatenate(moments[2:], 1)], 0)).save(
            args.stills)
        print(f"wrote {args.stills}")


if __name__ == "__main__":
    main()
