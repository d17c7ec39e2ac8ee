"""Contact sheets of generated first-person levels: many episodes of one level in one PNG.

Each tile is one episode as reset draws it: its map from above (walls, doors
in their lock colour, objects, the player's start as a marker) over the
player's first view (and, for a level with an instruction, the instruction under
it). ``python -m jaxlab.demo.contact_sheet LEVEL... --out
DIR`` writes ``DIR/LEVEL.png`` per level (``--all`` for every generated
DMLab level).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

import imageio.v3 as iio
import jax
import numpy as np

import jaxlab
from jaxlab.demo.lasertag_match import caption
from jaxlab.render.first_person.topdown import top_down
from jaxlab.render.first_person.topdown_arena import draw_players

FRAME = "RGB_INTERLEAVED"
GAP = 4                       # pixels between tiles
BACKGROUND = (24, 24, 28)


def _fit(image: np.ndarray, width: int) -> np.ndarray:
    """``image`` uint8[h, w, 3] scaled by an integer factor (nearest) to at most ``width`` wide,
    then padded with BACKGROUND to exactly ``width``."""
    scale = max(1, width // image.shape[1])
    image = np.repeat(np.repeat(image, scale, 0), scale, 1)[:, :width]
    pad = width - image.shape[1]
    return np.pad(image, ((0, 0), (pad // 2, pad - pad // 2), (0, 0)), constant_values=BACKGROUND[0])


def episode_tiles(level: str, episodes: int = 16, seed: int = 0, width: int = 96, height: int = 72,
                  tile_width: int = 192) -> list:
    """uint8[h, tile_width, 3] tiles of ``episodes`` fresh episodes of ``level`` (a generated or
    banked first-person level name): the map from above with the start marked, over the first view."""
    env = jaxlab.make(level, width=width, height=height, observations=(FRAME, "DEBUG.POS.TRANS"))
    states, steps = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(seed), episodes))
    states, frames = jax.device_get((states, steps.observation[FRAME]))
    tiles = []
    for i in range(episodes):
        state = jax.tree_util.tree_map(lambda a: a[i], states)
        lv = jax.device_get(env.level(state))
        rows, cols = np.asarray(lv.cells).shape
        cell_px = max(4, tile_width // max(rows, cols))
        present = np.asarray(state.pickup_wait) == 0
        goal = np.asarray(lv.goal_choice_pos)[int(state.goal_choice)]
        start = np.asarray(state.pos)[None].repeat(2, 0)
        plan = top_down(lv, trajectory=start, pickup_present=present, cell_px=cell_px, goal_pos=goal,
                        door_lock=np.asarray(state.door_lock))
        if state.arena is not None:   # laser tag: the other players where they start
            arena = state.arena
            draw_players(plan, rows, cell_px, arena.pos, arena.yaw, arena.look[1:], arena.up[1:], arena.playing[1:])
        view = _fit(frames[i], tile_width)
        parts = [_fit(plan, tile_width), np.full((GAP, tile_width, 3), BACKGROUND, np.uint8), view]
        if np.asarray(lv.instr).any():   # a language level: its instruction under the view
            parts.append(caption(env.decode(lv.instr), tile_width))
        tiles.append(np.concatenate(parts))
    return tiles


def contact_sheet(tiles: Sequence[np.ndarray], columns: int = 4) -> np.ndarray:
    """uint8[H, W, 3]: ``tiles`` (uint8[h, w, 3], padded to the largest) in rows of ``columns``."""
    h = max(t.shape[0] for t in tiles)
    w = max(t.shape[1] for t in tiles)
    padded = [np.pad(t, ((0, h - t.shape[0]), (0, w - t.shape[1]), (0, 0)), constant_values=BACKGROUND[0])
              for t in tiles]
    padded += [np.full((h, w, 3), BACKGROUND, np.uint8)] * (-len(padded) % columns)
    rows = [np.concatenate(sum(([t, np.full((h, GAP, 3), BACKGROUND, np.uint8)] for t in padded[r:r + columns]),
                               [])[:-1], 1) for r in range(0, len(padded), columns)]
    sheet = sum(([r, np.full((GAP, r.shape[1], 3), BACKGROUND, np.uint8)] for r in rows), [])[:-1]
    return np.pad(np.concatenate(sheet), ((GAP, GAP), (GAP, GAP), (0, 0)), constant_values=BACKGROUND[0])


def main(argv=None) -> None:
    """Write one contact sheet PNG per named level (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m jaxlab.demo.contact_sheet", description=__doc__.split("\n\n")[0])
    ap.add_argument("levels", nargs="*", help="level names")
    ap.add_argument("--all", action="store_true", help="every generated DMLab-30 level")
    ap.add_argument("--episodes", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="out/contact_sheets")
    args = ap.parse_args(argv)
    from jaxlab.levels.dmlab import dmlab30

    levels = list(args.levels) + (sorted(dmlab30.generators()) if args.all else [])
    if not levels:
        ap.error("name at least one level, or --all")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for level in levels:
        path = out / f"{level}.png"
        iio.imwrite(path, contact_sheet(episode_tiles(level, args.episodes, args.seed)))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
