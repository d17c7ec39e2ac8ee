"""maze_statistics on hand-made text mazes (exact values), and jaxlab's generator against labmaze."""
import functools

import jax
import labmaze
import numpy as np
import pytest

from jaxlab.levels.dmlab import maze_statistics as ms
from jaxlab.levels.dmlab.dmlab30 import explore
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.procedural.maze import generate_maze

# one 3x3 room (with entities) and a corridor that ends in a dead end at (1, 5)
DEAD_END = ("*********\n"
            "*P G*   *\n"
            "* P *** *\n"
            "*  G    *\n"
            "*********\n")
# two rooms joined by a door and by a corridor below (one loop); the corridor's two ends are dead
# ends; its two openings below the rooms sit at an even (row, column): off the node grid
LOOP = ("*********\n"
        "*   I   *\n"
        "*   *   *\n"
        "*   *   *\n"
        "** *** **\n"
        "*       *\n"
        "*********\n")
MAIN = ("rooms", "room_area", "corridor_cells", "floor_fraction", "dead_ends", "junctions", "loops", "entrances",
        "room_entrances")


def stats(text):
    """The statistics of one maze given as text."""
    return ms.statistics(*ms.parse_layers([text]))


def test_a_room_and_a_dead_end():
    s = stats(DEAD_END)
    assert s["rooms"].tolist() == [1] and s["room_area"].tolist() == [9]
    assert s["room_long_side"].tolist() == [3] and s["room_short_side"].tolist() == [3]
    assert s["corridor_cells"].tolist() == [8] and s["room_cells"].tolist() == [9]
    assert s["dead_ends"].tolist() == [1] and s["junctions"].tolist() == [0]
    assert s["loops"].tolist() == [0] and s["components"].tolist() == [1]
    assert s["entrances"].tolist() == [1] and s["room_entrances"].tolist() == [1]
    assert s["doors"].tolist() == [0] and s["off_grid"].tolist() == [0]
    assert s["floor_fraction"].tolist() == [17 / 21]


def test_two_rooms_a_door_and_a_loop():
    s = stats(LOOP)
    assert s["rooms"].tolist() == [2] and s["room_area"].tolist() == [9, 9]
    assert s["corridor_cells"].tolist() == [10] and s["doors"].tolist() == [1]
    assert s["dead_ends"].tolist() == [2] and s["junctions"].tolist() == [2]
    assert s["loops"].tolist() == [1] and s["components"].tolist() == [1]
    assert s["entrances"].tolist() == [3] and s["room_entrances"].tolist() == [2, 2]
    assert s["off_grid"].tolist() == [2] and s["room_maze"].tolist() == [0, 0]
    assert s["floor_fraction"].tolist() == [28 / 35]


def test_a_batch_is_its_mazes_one_by_one():
    both = ms.statistics(*ms.parse_layers([LOOP.replace("I", " ")] * 2))
    assert both["rooms"].tolist() == [2, 2] and both["room_maze"].tolist() == [0, 0, 1, 1]
    assert both["loops"].tolist() == [1, 1] and both["doors"].tolist() == [0, 0]


def test_entity_layer_writes_jaxlab_cells_as_text():
    cells = np.full((3, 5), CELL_WALL, np.int8)
    cells[1, 1:4] = [CELL_FLOOR, CELL_DOOR_I, CELL_DOOR_H]
    assert ms.entity_layer(cells) == "*****\n* IH*\n*****\n"


def test_distances_between_samples():
    assert ms.ks_distance(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1])) == pytest.approx(0.25)
    assert ms.ks_distance(np.arange(5), np.arange(5)) == 0.0
    assert ms.ks_distance(np.zeros(3), np.ones(4)) == 1.0
    assert ms.mean_gap(np.array([0.0, 2.0]), np.array([1.0, 3.0])) == pytest.approx(1.0)
    assert ms.mean_gap(np.ones(3), np.ones(5)) == 0.0 and ms.mean_gap(np.ones(3), np.zeros(3)) == -np.inf
    assert ms.ks_threshold(100, 100) == pytest.approx(np.sqrt(-np.log(0.0005) / 2) * np.sqrt(0.02))
    s = ms.summary(np.arange(101))
    assert (s["mean"], s["q05"], s["q50"], s["q95"]) == (50.0, 5.0, 50.0, 95.0)
    assert ms.within_tolerance(np.arange(100) % 7, np.arange(100) % 7)
    assert not ms.within_tolerance(np.zeros(100), np.ones(100))


def labmaze_small(seeds, max_variations=1):
    """labmaze's mazes of the explore levels' small class (DeepMind Lab's arguments) for ``seeds``."""
    args = dict(height=11, width=11, max_rooms=4, room_min_size=3, room_max_size=5, retry_count=1000,
                extra_connection_probability=0.0, max_variations=max_variations, has_doors=False, simplify=True,
                spawns_per_room=5, spawn_token="P", objects_per_room=4, object_token="G")
    return [labmaze.RandomMaze(random_seed=s, **args) for s in seeds]


@functools.lru_cache(maxsize=None)
def jaxlab_small(n):
    """jaxlab's first ``n`` mazes of the small class (keys split from key 0), one jitted call."""
    params = explore.SMALL
    keys = jax.random.split(jax.random.key(0), n)
    return jax.device_get(jax.jit(jax.vmap(functools.partial(generate_maze, params=params)))(keys))


def test_rooms_read_from_the_text_are_the_generators_own():
    mazes = labmaze_small(range(200), max_variations=26)
    floor, _ = ms.parse_layers([str(m.entity_layer) for m in mazes])
    variations = np.array([[list(r) for r in str(m.variations_layer).rstrip("\n").split("\n")] for m in mazes])
    assert np.array_equal(ms.room_cells(floor), variations != ".")
    ours = jaxlab_small(400)
    floor, _ = ms.parse_layers([ms.entity_layer(c) for c in ours.cells])
    assert np.array_equal(ms.room_cells(floor), ours.room_id >= 0)


def test_jaxlab_small_mazes_are_within_tolerance_of_labmazes():
    n = 400
    a = ms.statistics(*ms.parse_layers([str(m.entity_layer) for m in labmaze_small(range(n))]))
    b = ms.statistics(*ms.parse_layers([ms.entity_layer(c) for c in jaxlab_small(n).cells]))
    out = {name: (ms.mean_gap(a[name], b[name]), ms.ks_distance(a[name], b[name]))
           for name in MAIN if not ms.within_tolerance(a[name], b[name])}
    assert not out, f"out of tolerance (mean gap, KS): {out}"
