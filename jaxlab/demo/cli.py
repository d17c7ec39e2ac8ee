"""``jaxlab-demo``: a batched random-agent rollout of a built-in maze.

Runs ``--batch`` copies of a level under ``jax.jit(jax.vmap(env.step))`` as a
``lax.scan`` over chunks of steps, times it after compilation, and writes env
0's first-person view (``agent_view.gif``) and its path on the map
(``top_down.png``); a grid level (``pushbox``, ``jaxlab_commons_harvest``, ...)
runs ``jaxlab.demo.grid`` instead (``world.gif``, ``player1_view.gif``). Usage: ``jaxlab-demo [--level L] [--batch N] [--steps T]
[--width W] [--height H] [--out DIR] [--seed S]`` (or ``python -m jaxlab.demo``).
"""
from __future__ import annotations

import argparse

import jax

DEFAULT_LEVEL = "nav_maze_random_goal_01"


def default_batch() -> int:
    """1024 envs on the CPU, 16384 on an accelerator (GPU/TPU)."""
    return 1024 if jax.default_backend() == "cpu" else 16384


def parse_args(argv=None) -> argparse.Namespace:
    """Command-line options of ``jaxlab-demo``."""
    ap = argparse.ArgumentParser(prog="jaxlab-demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default=DEFAULT_LEVEL, help=f"level name (default {DEFAULT_LEVEL})")
    ap.add_argument("--batch", type=int, default=None, help="envs in parallel (1024 CPU, 16384 GPU)")
    ap.add_argument("--steps", type=int, default=200, help="agent steps per env (default 200)")
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--height", type=int, default=72)
    ap.add_argument("--action-repeat", type=int, default=4, help="frames per agent step (default 4)")
    ap.add_argument("--out", default="out", help="output folder (default out/)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    args.batch = args.batch or default_batch()
    if args.batch < 1 or args.steps < 1:
        ap.error("--batch and --steps must be positive")
    return args


def main(argv=None) -> None:
    """Run the demo (see the module docstring); ``argv`` defaults to ``sys.argv[1:]``."""
    import jaxlab

    args = parse_args(argv)
    if args.level in jaxlab.levels.names(family="lab2d"):
        from jaxlab.demo.grid import run

        run(args.level, args.batch, args.steps, args.out, args.seed)
    else:
        from jaxlab.demo import first_person

        first_person.run(args)
