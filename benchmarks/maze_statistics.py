"""jaxlab's on-device maze generator against labmaze (DeepMind Lab's generator), per size class.

For each size class of DMLab-30's explore levels, draws ``--mazes`` mazes from labmaze
(``labmaze.RandomMaze`` with the arguments DeepMind Lab's explore factory passes, seeds
0..N-1) and as many from ``jaxlab.levels.dmlab.procedural.maze.generate_maze`` (one batched,
jitted call; episode keys split from ``--seed``), reads both as text entity layers and compares
the statistics of ``jaxlab.levels.dmlab.maze_statistics``: per statistic, each side's mean, std and
quantiles, the difference of means in pooled standard deviations and the two-sample
Kolmogorov–Smirnov distance, and whether they are within the module's stated tolerance.

Rooms are read from the text alone; the section also says in how many mazes those rooms are the
generator's own (labmaze: its variations layer; jaxlab: ``Maze.room_id``).

Usage::

    PYTHONPATH=. python benchmarks/maze_statistics.py [--mazes 10000] [--seed 0] [--markdown]
        [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import time

import jax
import labmaze
import numpy as np

from jaxlab.bench.timing import add_output_arguments, device_and_date, finish, log
from jaxlab.levels.dmlab import maze_statistics as ms
from jaxlab.levels.dmlab.dmlab30 import explore
from jaxlab.levels.dmlab.procedural.maze import MazeParams, generate_maze


@dataclasses.dataclass(frozen=True)
class SizeClass:
    """One size class: the DMLab-30 levels drawing it, labmaze's arguments and jaxlab's parameters."""

    name: str
    levels: str
    labmaze_args: dict
    params: MazeParams


def _labmaze_args(height, width, rooms, room_min, room_max, has_doors, objects, token):
    """``labmaze.RandomMaze`` keywords as DeepMind Lab's explore factory passes them (with DeepMind
    Lab's defaults for what it leaves out: ``retry_count`` 1000, ``simplify`` on)."""
    return dict(height=height, width=width, max_rooms=rooms, room_min_size=room_min, room_max_size=room_max,
                retry_count=1000, extra_connection_probability=0.0, max_variations=1, has_doors=has_doors,
                simplify=True, spawns_per_room=explore.SPAWNS_PER_ROOM, spawn_token="P",
                objects_per_room=objects, object_token=token)


#: the explore levels' classes. Doors only turn connector cells into 'I'/'H' on either side (the
#: rest of each maze is the same with or without them), so each class is drawn with doors on and the
#: door-less levels of the class are the same mazes with floor for doors.
CLASSES = (
    SizeClass("explore small", "explore_{goal,object}_locations_small, explore_obstructed_goals_small",
              _labmaze_args(11, 11, 4, 3, 5, True, 4, "G"), dataclasses.replace(explore.SMALL, room_doors=True)),
    SizeClass("explore large", "explore_{goal,object}_locations_large, explore_obstructed_goals_large",
              _labmaze_args(17, 17, 9, 3, 3, True, 5, "G"), dataclasses.replace(explore.LARGE, room_doors=True)),
    SizeClass("object rewards room", "explore_object_rewards_{few,many} (jaxlab builds this room without the "
              "generator)", _labmaze_args(13, 13, 1, 11, 11, False, 8, "A"),
              MazeParams(height=13, width=13, room_count=1, room_min_size=11, room_max_size=11, extra_connections=0,
                         room_doors=False)),
)
#: the statistics shown, in order (per maze, then pooled over rooms)
SHOWN = ("rooms", "room_area", "room_long_side", "room_short_side", "room_cells", "corridor_cells", "floor_fraction",
         "dead_ends", "junctions", "loops", "entrances", "room_entrances", "doors", "off_grid", "components")


def labmaze_side(cls: SizeClass, n: int):
    """(entity layers, variations layers, seconds) of labmaze's mazes for seeds 0..n-1."""
    t0 = time.perf_counter()
    mazes = [labmaze.RandomMaze(random_seed=seed, **cls.labmaze_args) for seed in range(n)]
    layers = [str(m.entity_layer) for m in mazes], [str(m.variations_layer) for m in mazes]
    return layers[0], layers[1], time.perf_counter() - t0


def jaxlab_side(cls: SizeClass, n: int, seed: int):
    """(entity layers, room_id int32[n, H, W], seconds of the jitted call, compile included) of
    jaxlab's mazes for ``n`` keys split from ``seed``."""
    keys = jax.random.split(jax.random.key(seed), n)
    t0 = time.perf_counter()
    mazes = jax.device_get(jax.jit(jax.vmap(functools.partial(generate_maze, params=cls.params)))(keys))
    seconds = time.perf_counter() - t0
    return [ms.entity_layer(c) for c in mazes.cells], mazes.room_id, seconds


def rooms_agree(floor, own_rooms) -> int:
    """How many mazes' rooms read from the text (``ms.room_cells`` of ``floor`` bool[N, H, W]) are
    exactly ``own_rooms`` bool[N, H, W], the generator's own room cells."""
    return int(np.sum(np.all(ms.room_cells(floor) == own_rooms, axis=(1, 2))))


def _cell(s: dict, digits: int) -> tuple:
    quantiles = " / ".join(f"{s[q]:.{digits}f}" for q in ("q05", "q25", "q50", "q75", "q95"))
    return f"{s['mean']:.{digits + 1}f} ± {s['std']:.{digits + 1}f}", quantiles


def class_section(cls: SizeClass, n: int, seed: int) -> tuple:
    """(markdown lines, number of statistics out of tolerance) of one size class."""
    log(f"{cls.name}: labmaze")
    lab_layers, lab_variations, lab_s = labmaze_side(cls, n)
    log(f"{cls.name}: jaxlab")
    jax_layers, room_id, jax_s = jaxlab_side(cls, n, seed)
    lab_floor, lab_door = ms.parse_layers(lab_layers)
    jax_floor, jax_door = ms.parse_layers(jax_layers)
    lab_own = np.array([[list(r) for r in v.rstrip("\n").split("\n")] for v in lab_variations]) != "."
    a, b = ms.statistics(lab_floor, lab_door), ms.statistics(jax_floor, jax_door)
    p, la = cls.params, cls.labmaze_args
    lines = [f"#### {cls.name}: {cls.levels}", "",
             f"labmaze `RandomMaze(height={la['height']}, width={la['width']}, max_rooms={la['max_rooms']}, "
             f"room_min_size={la['room_min_size']}, room_max_size={la['room_max_size']}, retry_count=1000, "
             f"extra_connection_probability=0.0, has_doors={la['has_doors']}, simplify=True, ...)`, seeds 0..{n - 1}, "
             f"{lab_s:.1f} s; jaxlab `MazeParams(height={p.height}, width={p.width}, room_count={p.room_count}, "
             f"room_min_size={p.room_min_size}, room_max_size={p.room_max_size}, extra_connections="
             f"{p.extra_connections}, room_doors={p.room_doors}, remove_dead_ends={p.remove_dead_ends})`, "
             f"{n} keys from seed {seed}, one jitted call {jax_s:.1f} s (compile included). Rooms read from "
             f"the text are the generator's own in "
             f"{rooms_agree(lab_floor, lab_own)}/{n} labmaze mazes (variations layer) and "
             f"{rooms_agree(jax_floor, room_id >= 0)}/{n} jaxlab mazes (`room_id`).", "",
             "| statistic | labmaze mean ± std | labmaze q05 / q25 / q50 / q75 / q95 | jaxlab mean ± std "
             "| jaxlab q05 / q25 / q50 / q75 / q95 | Δmean / σ | KS | within |",
             "|---|---:|---:|---:|---:|---:|---:|:---:|"]
    misses = 0
    for name in SHOWN:
        digits = 2 if name == "floor_fraction" else 0
        ok = ms.within_tolerance(a[name], b[name])
        misses += not ok
        lab_mean, lab_q = _cell(ms.summary(a[name]), digits)
        jax_mean, jax_q = _cell(ms.summary(b[name]), digits)
        per = " (per room)" if name in ms.PER_ROOM else ""
        lines.append(f"| {name}{per} | {lab_mean} | {lab_q} | {jax_mean} | {jax_q} | "
                     f"{ms.mean_gap(a[name], b[name]):+.2f} | {ms.ks_distance(a[name], b[name]):.3f} | "
                     f"{'yes' if ok else '**no**'} |")
    return lines, misses


def main(argv=None) -> None:
    """Run every class and print (and with ``--append``, append) the markdown section."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mazes", type=int, default=10_000, help="mazes per class and side (default 10000)")
    ap.add_argument("--seed", type=int, default=0, help="seed of jaxlab's episode keys (default 0)")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rows, misses = [], 0
    for cls in CLASSES:
        lines, missed = class_section(cls, args.mazes, args.seed)
        rows += lines + [""]
        misses += missed
    head = (f"### Maze statistics: jaxlab's generator against labmaze, {args.mazes} mazes a side — "
            f"{device_and_date()}\n\n"
            f"`benchmarks/maze_statistics.py --mazes {args.mazes}`: statistics of "
            f"`jaxlab.levels.dmlab.maze_statistics` (rooms as labmaze's `FindRooms` reads them; corridor "
            f"cells: floor outside rooms; dead ends: corridor cells with one floor neighbour; loops: edges "
            f"beyond a spanning forest with each room one vertex; entrances: corridor cells next to a room; "
            f"off_grid: corridor cells at an even row and column). Δmean / σ: jaxlab's mean less labmaze's "
            f"over the pooled std; KS: two-sample Kolmogorov–Smirnov distance. Within tolerance: "
            f"|Δmean / σ| <= {ms.MEAN_GAP_TOLERANCE} and KS <= {ms.KS_TOLERANCE}, each widened by the "
            f"sampling noise of the sample sizes (`maze_statistics.within_tolerance`). "
            f"{misses} statistics out of tolerance; {time.perf_counter() - t0:.0f} s in all.")
    rows = "\n".join(rows).rstrip().split("\n")
    if args.markdown:
        print(head + "\n\n" + "\n".join(rows), flush=True)
    finish(args, head, rows[0], rows[1:])


if __name__ == "__main__":
    main()
