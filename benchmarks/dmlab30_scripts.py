"""DMLab-30's own level scripts beside jaxlab's native levels of the same names: episode statistics.

Given a DeepMind Lab checkout, each DMLab-30 level that jaxlab has natively
(``jaxlab.levels.dmlab.dmlab30.generators()``) and whose script
``game_scripts/levels/contributed/dmlab30/<name>.lua`` compiles is drawn
``--episodes`` times both ways: the script compiled ahead of time (in a child
process, ``compile_lua.isolation``, the checkout's ``game_scripts`` as the levels
folder) and the native generator on the device (one batched call). Per level and
side it prints the map size (rows x columns), floor cells, spawn points, pickups
per episode by class with the reward the level's pickup table gives the class
(what a ``pickup`` callback compiled onto the device adds during play is not
counted), and the episode length; a script that does not compile is listed with
its first error.

Usage::

    PYTHONPATH=. python benchmarks/dmlab30_scripts.py PATH [--episodes 50] [--levels a,b] [--markdown]
        [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import collections
import sys
import warnings
from pathlib import Path

import jax
import numpy as np

from jaxlab.bench.timing import add_output_arguments, device_and_date, finish
from jaxlab.levels.dmlab import dmlab30
from jaxlab.levels.dmlab.checkout import game_scripts
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR
from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES

#: the level setting DMLab's evaluation-only (``*_test``) levels ask for
HOLD_OUT = {"allowHoldOutLevels": "true"}
HEADER = ("| level | side | episodes | map (rows x cols) | floor cells | spawn points | pickups per episode "
          "(class: count, reward) | episode length (s) |\n|---|---|---:|---|---:|---:|---|---:|")


def _spread(values) -> str:
    """'mean' or 'min-max (mean m)' of numbers."""
    values = np.asarray(values, float)
    if values.min() == values.max():
        return f"{values.min():g}"
    return f"{values.min():g}-{values.max():g} (mean {values.mean():.1f})"


def statistics(levels) -> dict:
    """Per-episode statistics of a batch of Levels (numpy, leading axis E): the map size, floor cells,
    spawn points, episode seconds, and per pickup class its count per episode and its rewards."""
    cells, valid = np.asarray(levels.cells), np.asarray(levels.pickup_valid)
    kinds, rewards = np.asarray(levels.pickup_kind), np.asarray(levels.pickup_reward)
    floor = cells == CELL_FLOOR
    rows = floor.any(axis=2).sum(axis=1)
    cols = floor.any(axis=1).sum(axis=1)
    classes = collections.defaultdict(lambda: ([0] * len(cells), set()))
    for e in range(len(cells)):
        for k, r in zip(kinds[e][valid[e]], rewards[e][valid[e]]):
            name = PICKUP_TYPES[int(k)].name if 0 <= int(k) < len(PICKUP_TYPES) else f"kind {int(k)}"
            classes[name][0][e] += 1
            classes[name][1].add(round(float(r), 3))
    spawn_count = np.asarray(levels.spawn_allowed).any(axis=1).sum(axis=1)
    return {"episodes": len(cells), "rows": rows + 2, "cols": cols + 2, "floor": floor.sum(axis=(1, 2)),
            "spawns": spawn_count, "seconds": np.asarray(levels.episode_seconds).reshape(-1),
            "classes": dict(sorted(classes.items()))}


#: more pickup classes than this are summed up in one entry (the object levels draw from hundreds)
MOST_CLASSES = 8


def row(name: str, side: str, s: dict) -> str:
    """The markdown row of one side's :func:`statistics`."""
    classes = s["classes"]
    if len(classes) > MOST_CLASSES:
        counts = np.sum([c for c, _ in classes.values()], axis=0)
        rewards = sorted(set().union(*(r for _, r in classes.values())))
        pickups = (f"{len(classes)} classes over the episodes: {_spread(counts)} per episode, rewards "
                   f"{'/'.join(f'{r:g}' for r in rewards)}")
    else:
        pickups = "; ".join(f"{cls}: {_spread(counts)}, {'/'.join(f'{r:g}' for r in sorted(rewards))}"
                            for cls, (counts, rewards) in classes.items()) or "none"
    size = f"{_spread(s['rows'])} x {_spread(s['cols'])}"
    return (f"| {name} | {side} | {s['episodes']} | {size} | {_spread(s['floor'])} | {_spread(s['spawns'])} "
            f"| {pickups} | {_spread(s['seconds'])} |")


def native_levels(name: str, episodes: int, seed: int = 0):
    """``episodes`` Levels of jaxlab's native generator of ``name`` (numpy), drawn in one batched call."""
    generator = dmlab30.generators()[name]
    keys = jax.random.split(jax.random.PRNGKey(seed), episodes)

    def draw(key):
        k_index, k_level = jax.random.split(key)
        return generator.episode(k_level, generator.sample_index(k_index))
    return jax.device_get(jax.jit(jax.vmap(draw))(keys))


def script_levels(script: Path, root: Path, episodes: int):
    """``episodes`` Levels of the DeepMind Lab script compiled in a child process (numpy bank levels), with
    ``HOLD_OUT`` as its settings."""
    from compile_lua.isolation import compile_in_child

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = compile_in_child(script, HOLD_OUT, episodes=episodes, levels_dir=str(root),
                                    print_fn=lambda text: None)
    return compiled.bank.levels


def main(argv=None) -> None:
    """Run the comparison (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="a DeepMind Lab checkout (or its game_scripts folder)")
    ap.add_argument("--episodes", type=int, default=50, help="episodes per side (default 50)")
    ap.add_argument("--levels", default=None, help="comma-separated DMLab-30 names (default: every native one)")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    try:
        root = game_scripts(args.path.resolve(), "PATH")
    except FileNotFoundError as err:
        sys.exit(str(err))
    names = args.levels.split(",") if args.levels else sorted(dmlab30.generators())
    head = (f"### DMLab-30's own scripts beside jaxlab's native levels — {device_and_date()}\n\n"
            f"`benchmarks/dmlab30_scripts.py` on a checkout: {args.episodes} episodes per side; the script compiled "
            "ahead of time with the checkout's `game_scripts`, the native level drawn by its generator on the device. "
            "Map size counts the rows and columns that hold floor, plus the outer walls; values are min-max (mean) "
            "over the episodes.")
    if args.markdown:
        print(head + "\n\n" + HEADER, flush=True)
    rows = []
    for name in names:
        script = root / "levels" / "contributed" / "dmlab30" / f"{name}.lua"
        lines = [row(name, "jaxlab native", statistics(native_levels(name, args.episodes)))]
        try:
            lines.insert(0, row(name, "DMLab script", statistics(script_levels(script, root, args.episodes))))
        except Exception as err:   # noqa: BLE001 - reported in the table
            text = " ".join(str(err).split()).replace("|", "\\|")
            lines.insert(0, f"| {name} | DMLab script | — | does not compile: {text[:160]} | | | | |")
        for line in lines:
            print(line, flush=True)
        rows += lines
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()
