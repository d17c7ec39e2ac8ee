"""Seeded generator of the built-in nav_maze text maps (run it to rewrite them).

    python -m jaxlab.levels.dmlab.maze_generator [out_dir]

writes ``nav_maze_static_0N.txt``, ``nav_maze_random_goal_0N.txt`` and their
``.variations.txt`` layers for every entry of MAZES. The maps are committed;
this script only documents and reproduces them.

A maze lives on a grid with odd sizes: cells at odd (row, col) are *nodes*,
the cells between two nodes are *connectors*, cells at even (row, col) are
pillars. Steps:

1. Carve a few small rooms (2 or 3 nodes a side, so 3×3 to 5×5 cells).
2. Carve a spanning tree of all nodes with the growing-tree algorithm (a mix
   of newest-node and random-node picks), each room one vertex of the tree.
3. Open a few extra connectors that join far-apart places: loops.
4. Spots = room centres and dead ends (topped up or thinned to a range). In
   the random-goal map every spot is a ``P``; the static map puts ``G`` on one
   and ``P`` on the spots farthest from it.
5. Doors (``I``/``H``) on room entrances; apples ``A`` spread over corridors
   (farthest-point sampling away from spots, doors and other apples).
6. Variations layer: every cell gets the letter of its nearest room (so each
   room and the corridors around it form one themed area).

Only ``random.Random.random()`` is used, whose sequence Python keeps stable,
so a seed always gives the same maze.
"""
from __future__ import annotations

import dataclasses
import random
import sys
from collections import deque
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np

Cell = Tuple[int, int]
MAPS_DIR = Path(__file__).parent / "maps"


@dataclasses.dataclass(frozen=True)
class MazeSpec:
    """Parameters of one generated maze (sizes include the outer wall; odd)."""

    name: str
    rows: int
    cols: int
    seed: int
    rooms: int
    loops: int
    doors: int
    apples: int
    spawns: int            # P cells of the static map
    min_spots: int = 10    # P cells of the random-goal map: at least ...
    max_spots: int = 30    # ... and at most
    newest_bias: float = 0.6   # growing-tree: chance of extending the newest node


MAZES: Tuple[MazeSpec, ...] = (
    MazeSpec("01", 11, 21, seed=101, rooms=3, loops=3, doors=0, apples=8, spawns=1),
    MazeSpec("02", 19, 31, seed=202, rooms=4, loops=6, doors=2, apples=15, spawns=2),
    MazeSpec("03", 27, 41, seed=303, rooms=6, loops=10, doors=3, apples=25, spawns=3),
)


class _Rng:
    """Small helpers on top of ``random.Random.random()`` (stable across Pythons)."""

    def __init__(self, seed: int):
        self._r = random.Random(seed)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        return min(int(self._r.random() * n), n - 1)

    def chance(self, p: float) -> bool:
        """True with probability p."""
        return self._r.random() < p

    def choice(self, seq: Sequence):
        """A uniform element of a non-empty sequence."""
        return seq[self.below(len(seq))]

    def shuffled(self, seq: Sequence) -> list:
        """A Fisher-Yates shuffled copy."""
        out = list(seq)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def _bfs(open_: np.ndarray, sources: Sequence[Cell]) -> np.ndarray:
    """Steps from the nearest source over open cells; -1 where unreachable."""
    dist = np.full(open_.shape, -1, np.int32)
    todo = deque()
    for s in sources:
        dist[s] = 0
        todo.append(s)
    while todo:
        r, c = todo.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if open_[nr, nc] and dist[nr, nc] < 0:
                dist[nr, nc] = dist[r, c] + 1
                todo.append((nr, nc))
    return dist


def _place_rooms(spec: MazeSpec, rng: _Rng) -> List[Tuple[int, int, int, int]]:
    """Non-touching rooms as node rectangles (r0, c0, r1, c1), inclusive."""
    nh, nw = (spec.rows - 1) // 2, (spec.cols - 1) // 2
    rooms: List[Tuple[int, int, int, int]] = []
    for _ in range(1000):
        if len(rooms) == spec.rooms:
            break
        h, w = 2 + rng.below(2), 2 + rng.below(2)
        r0, c0 = rng.below(nh - h + 1), rng.below(nw - w + 1)
        r1, c1 = r0 + h - 1, c0 + w - 1
        if all(r1 + 1 < a or b + 1 < r0 or c1 + 1 < c or d + 1 < c0 for a, c, b, d in rooms):
            rooms.append((r0, c0, r1, c1))
    if len(rooms) != spec.rooms:
        raise ValueError(f"maze {spec.name}: could not place {spec.rooms} rooms")
    return sorted(rooms)


def _carve_tree(open_: np.ndarray, rooms, rng: _Rng, newest_bias: float) -> None:
    """Growing-tree spanning tree over the nodes (odd cells), carved into open_.

    Each room counts as one vertex of the tree, so it gets as many entrances as
    tree edges (usually one to three) rather than one per crossing corridor.
    """
    nh, nw = (open_.shape[0] - 1) // 2, (open_.shape[1] - 1) // 2
    vertex = np.arange(nh * nw).reshape(nh, nw) + len(rooms)
    for i, (r0, c0, r1, c1) in enumerate(rooms):
        vertex[r0:r1 + 1, c0:c1 + 1] = i
    members: Dict[int, List[Cell]] = {}
    for r in range(nh):
        for c in range(nw):
            members.setdefault(int(vertex[r, c]), []).append((r, c))
    seen = set()

    def visit(v: int) -> None:
        seen.add(v)
        for r, c in members[v]:
            open_[2 * r + 1, 2 * c + 1] = True

    start = int(vertex[rng.below(nh), rng.below(nw)])
    visit(start)
    active = [start]
    while active:
        i = len(active) - 1 if rng.chance(newest_bias) else rng.below(len(active))
        steps = [((r, c), (r + dr, c + dc)) for r, c in members[active[i]]
                 for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                 if 0 <= r + dr < nh and 0 <= c + dc < nw and int(vertex[r + dr, c + dc]) not in seen]
        if not steps:
            active.pop(i)
            continue
        (r, c), (nr, nc) = rng.choice(steps)
        open_[r + nr + 1, c + nc + 1] = True   # the connector between the two nodes
        visit(int(vertex[nr, nc]))
        active.append(int(vertex[nr, nc]))


def _add_loops(open_: np.ndarray, in_room: np.ndarray, rng: _Rng, count: int) -> None:
    """Open ``count`` closed connectors, each the best of a few random tries at
    joining two places far apart along the current paths."""
    rows, cols = open_.shape
    for _ in range(count):
        closed = [(r, c) for r in range(1, rows - 1) for c in range(1, cols - 1)
                  if (r + c) % 2 == 1 and not open_[r, c] and not in_room[r, c]]
        best, best_gain = None, -1
        for r, c in rng.shuffled(closed)[:12]:
            a, b = ((r, c - 1), (r, c + 1)) if r % 2 else ((r - 1, c), (r + 1, c))
            gain = _bfs(open_, [a])[b]
            if gain > best_gain:
                best, best_gain = (r, c), gain
        open_[best] = True


def _farthest_points(open_: np.ndarray, candidates: List[Cell], fixed: List[Cell],
                     count: int, rng: _Rng) -> List[Cell]:
    """Pick ``count`` candidates one by one, each a random one among the farthest
    (path distance ≥ 70% of the largest) from ``fixed`` and the picks so far."""
    picks: List[Cell] = []
    for _ in range(count):
        pool = [c for c in candidates if c not in picks]
        if not pool:
            break
        sources = fixed + picks
        if sources:
            dist = _bfs(open_, sources)
            far = max(dist[c] for c in pool)
            pool = [c for c in pool if dist[c] >= 0.7 * far]
        picks.append(rng.choice(pool))
    return picks


@dataclasses.dataclass(frozen=True)
class MazeTexts:
    """The three text layers of one generated maze."""

    static: str
    random_goal: str
    variations: str


def generate(spec: MazeSpec) -> MazeTexts:
    """Generate one maze: static map (one G), random-goal map (many P), variations."""
    rng = _Rng(spec.seed)
    rows, cols = spec.rows, spec.cols
    if rows % 2 == 0 or cols % 2 == 0:
        raise ValueError("maze sizes must be odd")
    open_ = np.zeros((rows, cols), bool)
    in_room = np.zeros((rows, cols), bool)
    rooms = _place_rooms(spec, rng)
    for r0, c0, r1, c1 in rooms:
        in_room[2 * r0 + 1:2 * r1 + 2, 2 * c0 + 1:2 * c1 + 2] = True
    open_ |= in_room
    _carve_tree(open_, rooms, rng, spec.newest_bias)
    _add_loops(open_, in_room, rng, spec.loops)

    nodes = [(r, c) for r in range(1, rows, 2) for c in range(1, cols, 2) if not in_room[r, c]]
    degree = lambda r, c: int(open_[r - 1, c]) + open_[r + 1, c] + open_[r, c - 1] + open_[r, c + 1]
    centres = [(r0 + r1 + 1, c0 + c1 + 1) for r0, c0, r1, c1 in rooms]
    dead_ends = [n for n in nodes if degree(*n) == 1]
    spots = centres + dead_ends
    if len(spots) > spec.max_spots:
        spots = centres + _farthest_points(open_, dead_ends, centres, spec.max_spots - len(centres), rng)
    elif len(spots) < spec.min_spots:
        extra = [n for n in nodes if n not in spots]
        spots += _farthest_points(open_, extra, spots, spec.min_spots - len(spots), rng)

    goal = rng.choice(spots)
    from_goal = _bfs(open_, [goal])
    spawns = sorted((s for s in spots if s != goal), key=lambda s: -from_goal[s])[:spec.spawns]

    # Doors on room entrances, each room at most one, rooms in random order.
    doors: Dict[Cell, str] = {}
    for r0, c0, r1, c1 in rng.shuffled(rooms):
        if len(doors) == spec.doors:
            break
        top, left, bottom, right = 2 * r0, 2 * c0, 2 * r1 + 2, 2 * c1 + 2
        entrances = [(top, c) for c in range(left + 1, right, 2)] + [(bottom, c) for c in range(left + 1, right, 2)]
        entrances += [(r, left) for r in range(top + 1, bottom, 2)] + [(r, right) for r in range(top + 1, bottom, 2)]
        entrances = [(r, c) for r, c in entrances if 0 < r < rows - 1 and 0 < c < cols - 1 and open_[r, c]]
        if entrances:
            r, c = rng.choice(entrances)
            doors[(r, c)] = "I" if r % 2 else "H"   # odd row: crossed left-right
    if len(doors) < spec.doors:
        raise ValueError(f"maze {spec.name}: only {len(doors)} room entrances for doors")

    corridor = [(r, c) for r in range(1, rows - 1) for c in range(1, cols - 1)
                if open_[r, c] and not in_room[r, c] and (r, c) not in doors and (r, c) not in spots]
    apples = _farthest_points(open_, corridor, spots + list(doors), spec.apples, rng)

    def render(marks: Dict[Cell, str]) -> str:
        grid = [["*" if not open_[r, c] else marks.get((r, c), " ") for c in range(cols)] for r in range(rows)]
        return "\n".join("".join(line) for line in grid) + "\n"

    base = {**doors, **{a: "A" for a in apples}}
    static = render({**base, goal: "G", **{s: "P" for s in spawns}})
    random_goal = render({**base, **{s: "P" for s in spots}})

    rr, cc = np.mgrid[0:rows, 0:cols]
    d2 = np.stack([(rr - r) ** 2 + (cc - c) ** 2 for r, c in centres])
    letters = np.array([chr(ord("A") + i) for i in range(len(centres))])[d2.argmin(0)]
    variations = "\n".join("".join(line) for line in letters) + "\n"
    return MazeTexts(static, random_goal, variations)


def write_maps(out_dir: Path = MAPS_DIR) -> List[Path]:
    """Write every maze of MAZES into ``out_dir``; returns the written paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in MAZES:
        texts = generate(spec)
        for kind, text in (("static", texts.static), ("random_goal", texts.random_goal)):
            for suffix, body in ((".txt", text), (".variations.txt", texts.variations)):
                path = out_dir / f"nav_maze_{kind}_{spec.name}{suffix}"
                path.write_text(body)
                written.append(path)
    return written


if __name__ == "__main__":
    for p in write_maps(Path(sys.argv[1]) if len(sys.argv) > 1 else MAPS_DIR):
        print(p)
