"""Frames/s of jit(vmap(render_first_person)) alone, at a given batch and size.

Usage: PYTHONPATH=. python benchmarks/render_only.py [--batch 1024] [--width 96]
[--height 72] [--depth] [--iters 20] [--level nav_maze_static_01]

Cameras are random (position in a random floor cell, yaw, pitch within
+-20 degrees), doors random, 80% of pickups present.
"""
from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.level import build_level, cell_center
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, parse_text_map
from jaxlab.render import Camera, render_first_person

MAZE = """
*******************
*P    *     A    G*
* *** * *** ***** *
* *A    *       * *
* ***H*** ***** * *
*     *   *A  * I *
***** * * * *** * *
*A    *   *     A *
*******************
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--height", type=int, default=72)
    ap.add_argument("--depth", action="store_true")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--level", default="", help="a built-in level name (default: a small test maze)")
    args = ap.parse_args()

    if args.level:
        from jaxlab.levels.dmlab.catalogue import builtin_level
        host_level = builtin_level(args.level)
    else:
        host_level = build_level(parse_text_map(MAZE), episode_seconds=60)
    level = jax.tree_util.tree_map(jnp.asarray, host_level)
    rng = np.random.default_rng(0)
    floor = np.argwhere(np.asarray(level.cells) == CELL_FLOOR)
    pick = floor[rng.integers(0, len(floor), args.batch)]
    pos = cell_center(pick[:, 0], pick[:, 1], int(level.rows)) + rng.uniform(-30, 30, (args.batch, 2))
    cams = Camera(pos=jnp.asarray(pos, jnp.float32),
                  eye_z=jnp.full((args.batch,), 26.0, jnp.float32),
                  yaw=jnp.asarray(rng.uniform(0, 360, args.batch), jnp.float32),
                  pitch=jnp.asarray(rng.uniform(-20, 20, args.batch), jnp.float32))
    doors = jnp.asarray(rng.random((args.batch, level.door_valid.shape[0])) < 0.5)
    present = jnp.asarray(rng.random((args.batch, level.pickup_valid.shape[0])) < 0.8)

    def one(cam, door_closed, present):
        return render_first_person(level, cam, door_closed, level.pickup_pos, present,
                                   width=args.width, height=args.height, with_depth=args.depth)

    fn = jax.jit(jax.vmap(one))
    t0 = time.perf_counter()
    fn(cams, doors, present).block_until_ready()
    compile_s = time.perf_counter() - t0
    times = []
    for _ in range(args.iters):
        t0 = time.perf_counter()
        fn(cams, doors, present).block_until_ready()
        times.append(time.perf_counter() - t0)
    best, med = min(times), float(np.median(times))
    print(f"{jax.devices()[0].platform} {args.level or 'test maze'} batch={args.batch} {args.width}x{args.height} depth={args.depth} "
          f"compile={compile_s:.1f}s median={med * 1e3:.2f}ms ({args.batch / med:,.0f} frames/s) "
          f"best={best * 1e3:.2f}ms ({args.batch / best:,.0f} frames/s)")


if __name__ == "__main__":
    main()
