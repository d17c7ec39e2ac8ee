"""A scripted walk down a skymaze: the way from the start to the goal that only steps down, followed.

``downhill_route`` finds, on the host, the shortest path over the platforms
from the spawn to the goal that never climbs more than the step height (a
breadth-first search over map cells). ``walk_down`` plays it in the env:
each agent step turns toward the next platform's centre and walks forward
once facing it, slowly toward a drop (a fall keeps the run's speed: at full
speed it would carry the player past the platform below). Used by the tests (the goal pays) and the demo GIF.
"""
from __future__ import annotations

import argparse
from collections import deque
from pathlib import Path
from typing import List, Tuple

import jax
import jax.numpy as jnp
import numpy as np

import jaxlab
from jaxlab.demo.rollout import upscale, write_gif
from jaxlab.levels.dmlab import actions as A
from jaxlab.levels.dmlab.heights import HEIGHT_CELLS_PER_CELL, NO_FLOOR
from jaxlab.levels.dmlab.units import CELL_SIZE, LOOK_DEGREES_PER_PIXEL, STEP_HEIGHT

Cell = Tuple[int, int]
#: units/s: the walk steps off a drop no faster than this
SLOW = 110.0


def cell_heights(level) -> np.ndarray:
    """float32[Hm, Wm]: the ground of each map cell (its first height cell; NO_FLOOR where none)."""
    return np.asarray(level.floor_z)[::HEIGHT_CELLS_PER_CELL, ::HEIGHT_CELLS_PER_CELL]


def cell_at(level, xy) -> Cell:
    """(row, col) of the map cell holding world point xy (units)."""
    return int(np.asarray(level.rows)) - 1 - int(xy[1] // CELL_SIZE), int(xy[0] // CELL_SIZE)


def downhill_routes(level, start: Cell) -> dict:
    """{cell: previous cell} of a breadth-first search from ``start`` over platform cells, moving to a
    4-neighbour whose ground is at most STEP_HEIGHT above the current one."""
    z = cell_heights(level)
    back = {start: None}
    todo = deque([start])
    while todo:
        r, c = todo.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            inside = 0 <= nr < z.shape[0] and 0 <= nc < z.shape[1]
            if inside and (nr, nc) not in back and NO_FLOOR < z[nr, nc] <= z[r, c] + STEP_HEIGHT:
                back[(nr, nc)] = (r, c)
                todo.append((nr, nc))
    return back


def downhill_route(level, start: Cell, goal: Cell) -> List[Cell]:
    """The cells from ``start`` to ``goal`` (both included) of a shortest route that never climbs more
    than the step height; [] if there is none."""
    back = downhill_routes(level, start)
    if goal not in back:
        return []
    route = [goal]
    while route[-1] != start:
        route.append(back[route[-1]])
    return route[::-1]


def toward(pos, yaw, target, frames: int, walk: bool = True) -> np.ndarray:
    """int32[7]: the action that turns toward world point ``target`` over ``frames`` frames and, if
    ``walk``, walks forward once facing it within 10 degrees (pos float32[2], yaw degrees)."""
    d = np.asarray(target, np.float64) - np.asarray(pos, np.float64)
    want = np.degrees(np.arctan2(d[1], d[0]))
    turn = (want - float(yaw) + 180.0) % 360.0 - 180.0
    pixels = int(np.clip(np.round(-turn / (LOOK_DEGREES_PER_PIXEL * frames)), A.ACTION_MIN[0], A.ACTION_MAX[0]))
    action = np.zeros(7, np.int32)
    action[A.LOOK_LEFT_RIGHT] = pixels
    action[A.MOVE_BACK_FORWARD] = int(walk and abs(turn) < 10.0)
    return action


def walk_down(env, key, max_steps: int = 400):
    """Play one skymaze episode of ``env`` from ``key`` along its downhill route to the goal.

    Returns (observations: list of the TimeSteps' observation dicts, rewards float32[T], route
    [cells]); the walk stops when the episode ends or after ``max_steps`` agent steps."""
    state, ts = jax.jit(env.reset)(key)
    level = jax.device_get(env.level(state))
    goal = np.asarray(level.pickup_pos)[0]
    route = downhill_route(level, cell_at(level, np.asarray(state.pos)), cell_at(level, goal))
    rows = int(np.asarray(level.rows))
    points = [((c + 0.5) * CELL_SIZE, (rows - 1 - r + 0.5) * CELL_SIZE) for r, c in route[1:]] or [tuple(goal)]
    ground = [cell_heights(level)[cell] for cell in route[1:]] or [np.inf]
    step = jax.jit(env.step)
    frames, rewards, k = [ts.observation], [], 0
    for _ in range(max_steps):
        pos = np.asarray(state.pos)
        while k < len(points) - 1 and np.hypot(*(np.asarray(points[k]) - pos)) < 15.0:
            k += 1
        drop = ground[k] < float(state.z) - STEP_HEIGHT
        walk = not drop or float(np.hypot(*np.asarray(state.vel))) < SLOW
        state, ts = step(state, jnp.asarray(toward(pos, float(state.yaw), points[k], env.action_repeat, walk)))
        frames.append(ts.observation)
        rewards.append(float(ts.reward))
        if bool(ts.last()):
            break
    return frames, np.asarray(rewards, np.float32), route


def main(argv=None) -> None:
    """``python -m jaxlab.demo.skymaze_walk [--seed N] [--out PATH]``: a GIF of the walk down a hard skymaze."""
    ap = argparse.ArgumentParser(prog="python -m jaxlab.demo.skymaze_walk", description=main.__doc__)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", default="out/skymaze_walk.gif")
    ap.add_argument("--every", type=int, default=2, help="keep one agent step in this many")
    args = ap.parse_args(argv)
    env = jaxlab.make("skymaze_irreversible_path_hard", width=96, height=72, action_repeat=4)
    obs, rewards, route = walk_down(env, jax.random.key(args.seed))
    frames = np.stack([np.asarray(o["RGB_INTERLEAVED"]) for o in obs])[::args.every]
    write_gif(Path(args.out), upscale(frames, 2), 40 * args.every,
              f"{len(route)} platforms, {len(rewards)} agent steps, return {rewards.sum():g}")


if __name__ == "__main__":
    main()
