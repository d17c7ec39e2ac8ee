"""Built-in text maps (jaxlab/levels/maps) and the top-down view."""
from __future__ import annotations

from collections import deque
from pathlib import Path

import numpy as np
import pytest

from jaxlab.levels.dmlab.level import build_level, cell_center
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_WALL, parse_text_map
from jaxlab.render.first_person.topdown import top_down

MAPS = Path(__file__).resolve().parents[2] / "jaxlab" / "levels" / "dmlab" / "maps"
LEGEND = {"L": "lemon_reward"}
STATIC = ["nav_maze_static_01", "nav_maze_static_02", "nav_maze_static_03"]
RANDOM = ["nav_maze_random_goal_01", "nav_maze_random_goal_02", "nav_maze_random_goal_03"]
ALL = ["seekavoid_arena_01"] + STATIC + RANDOM


def load(name: str):
    """Parse built-in map ``name`` with its variations layer."""
    path = MAPS / f"{name}.txt"
    variations = (MAPS / f"{name}.variations.txt").read_text()
    return parse_text_map(path.read_text(), variations, pickups=LEGEND, source=str(path))


def bfs(cells: np.ndarray, start) -> np.ndarray:
    """Grid steps from ``start`` over non-wall cells; -1 where unreachable."""
    dist = np.full(cells.shape, -1, int)
    dist[start] = 0
    todo = deque([start])
    while todo:
        r, c = todo.popleft()
        for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= n[0] < cells.shape[0] and 0 <= n[1] < cells.shape[1] \
                    and cells[n] != CELL_WALL and dist[n] < 0:
                dist[n] = dist[r, c] + 1
                todo.append(n)
    return dist


def count(parsed, kind: str) -> int:
    """Number of pickups of type ``kind``."""
    return sum(k == kind for _, _, k in parsed.pickups)


def test_every_map_file_is_known():
    """The maps folder holds exactly the expected maps."""
    names = {p.name[:-4] for p in MAPS.glob("*.txt") if not p.name.endswith(".variations.txt")}
    assert names == set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_map_parses_enclosed_and_connected(name):
    """Parses with variations, walled border, every open cell reachable from every P."""
    parsed = load(name)
    cells = parsed.cells
    border = np.concatenate([cells[0], cells[-1], cells[:, 0], cells[:, -1]])
    assert (border == CELL_WALL).all()
    assert parsed.spawns
    open_cells = cells != CELL_WALL
    for spawn in parsed.spawns:
        assert ((bfs(cells, spawn) >= 0) == open_cells).all(), f"{name}: unreachable cells from {spawn}"
    # A variations layer with at least two themed areas.
    assert len(np.unique(parsed.variation[parsed.variation > 0])) >= 2


def test_seekavoid_arena():
    """Open arena with apples, lemons, several spawns and 2-4 wall themes."""
    parsed = load("seekavoid_arena_01")
    assert parsed.shape[0] >= 15 and parsed.shape[1] >= 15
    assert count(parsed, "apple_reward") >= 10 and count(parsed, "lemon_reward") >= 5
    assert len(parsed.spawns) >= 3 and count(parsed, "goal") == 0
    assert 2 <= len(np.unique(parsed.variation[parsed.cells == CELL_WALL])) <= 4


def test_static_mazes_grow_and_have_one_far_goal():
    """Sizes grow 01<02<03; one G, spawns far from it; apples present."""
    shapes = []
    for name in STATIC:
        parsed = load(name)
        shapes.append(parsed.shape)
        goals = [(r, c) for r, c, k in parsed.pickups if k == "goal"]
        assert len(goals) == 1, name
        dist = bfs(parsed.cells, goals[0])
        for spawn in parsed.spawns:
            assert dist[spawn] >= 0.5 * dist.max(), f"{name}: spawn {spawn} is near the goal"
        assert count(parsed, "apple_reward") >= 5
    for (r0, c0), (r1, c1) in zip(shapes, shapes[1:]):
        assert r0 < r1 and c0 < c1


@pytest.mark.parametrize("name", STATIC[1:])
def test_doors_sit_in_corridors(name):
    """02/03 have doors; each is open across its passage and walled at its sides."""
    cells = load(name).cells
    doors = np.argwhere((cells == CELL_DOOR_I) | (cells == CELL_DOOR_H))
    assert len(doors) >= 1
    for r, c in doors:
        across = [(r, c - 1), (r, c + 1)] if cells[r, c] == CELL_DOOR_I else [(r - 1, c), (r + 1, c)]
        sides = [(r - 1, c), (r + 1, c)] if cells[r, c] == CELL_DOOR_I else [(r, c - 1), (r, c + 1)]
        assert all(cells[n] != CELL_WALL for n in across) and all(cells[n] == CELL_WALL for n in sides)


@pytest.mark.parametrize("static, random", list(zip(STATIC, RANDOM)))
def test_random_goal_twin(static, random):
    """Random-goal maps share walls, themes and apples with their static twin; many P."""
    a, b = load(static), load(random)
    assert np.array_equal(a.cells, b.cells) and np.array_equal(a.variation, b.variation)
    apples = lambda p: sorted((r, c) for r, c, k in p.pickups if k == "apple_reward")
    assert apples(a) == apples(b)
    assert count(b, "goal") == 0 and len(b.spawns) >= 8
    # The static goal and spawns are among the random-goal choices.
    goal = [(r, c) for r, c, k in a.pickups if k == "goal"]
    assert set(goal) | set(a.spawns) <= set(b.spawns)


def test_generator_reproduces_committed_mazes(tmp_path):
    """maze_text.py regenerates the committed nav_maze files byte for byte."""
    from jaxlab.levels.dmlab.maze_generator import write_maps

    for path in write_maps(tmp_path):
        assert path.read_text() == (MAPS / path.name).read_text(), path.name


def path_through(parsed):
    """World (x, y) points along a shortest grid path from the first spawn to the farthest cell."""
    cells, start = parsed.cells, parsed.spawns[0]
    dist = bfs(cells, start)
    cur = tuple(np.unravel_index(dist.argmax(), dist.shape))
    path = [cur]
    while cur != start:
        r, c = cur
        cur = next(n for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if dist[n] == dist[cur] - 1)
        path.append(cur)
    rc = np.array(path[::-1])
    return cell_center(rc[:, 0], rc[:, 1], cells.shape[0])


def test_top_down_shape_and_trajectory():
    """Image shape; the drawn trajectory changes pixels along the path only."""
    parsed = load("nav_maze_static_02")
    level = build_level(parsed, 60.0)
    plain = top_down(level, cell_px=8)
    assert plain.shape == (19 * 8, 31 * 8, 3) and plain.dtype == np.uint8
    traj = path_through(parsed)
    drawn = top_down(level, trajectory=traj, cell_px=8)
    assert drawn.shape == plain.shape
    changed = (drawn != plain).any(-1)
    # Pixels at the midpoints between consecutive path points changed; the rest of the
    # image far from the path (e.g. the wall border) did not.
    mids = (traj[1:] + traj[:-1]) / 2
    px = (mids[:, 0] / 100 * 8).astype(int)
    py = ((19 * 100 - mids[:, 1]) / 100 * 8).astype(int)
    assert changed[py, px].mean() > 0.9
    assert not changed[0].any() and not changed[:, 0].any()


def test_top_down_pickups_and_goal_follow():
    """pickup_present hides a pickup; goal_pos places the goal-following pickup."""
    parsed = load("nav_maze_random_goal_01")
    level = build_level(parsed, 60.0, random_goal=True)
    present = np.asarray(level.pickup_valid).copy()
    full = top_down(level, pickup_present=present, cell_px=10)
    present[0] = False
    fewer = top_down(level, pickup_present=present, cell_px=10)
    r, c = parsed.pickups[0][:2]
    assert (full[r * 10 + 5, c * 10 + 5] != fewer[r * 10 + 5, c * 10 + 5]).any()
    goal = np.asarray(level.goal_choice_pos)[3]
    with_goal = top_down(level, cell_px=10, goal_pos=goal)
    gx, gy = int(goal[0] / 10), int((level.rows * 100 - goal[1]) / 10)
    assert (with_goal[gy, gx] != full[gy, gx]).any()
