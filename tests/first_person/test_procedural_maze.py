"""The on-device maze generator and grid utilities: properties over 10k mazes in one batched call."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.procedural.cells import flood_fill, sample_cells
from jaxlab.levels.dmlab.procedural.maze import MazeParams, generate_maze

SMALL = MazeParams(height=11, width=11, room_count=4, room_min_size=3, room_max_size=5,
                   extra_connections=0, room_doors=False)
DOORS = MazeParams(height=15, width=15, room_count=4, room_min_size=3, room_max_size=5,
                   extra_connections=2, room_doors=True)


@functools.lru_cache(maxsize=None)
def batch(params, n):
    keys = jax.random.split(jax.random.key(7), n)
    return jax.device_get(jax.jit(jax.vmap(functools.partial(generate_maze, params=params)))(keys))


@pytest.mark.parametrize("params,n", [(SMALL, 10_000), (DOORS, 2_000)])
def test_every_open_cell_is_reachable_and_rooms_are_walled_apart(params, n):
    m = batch(params, n)
    cells = m.cells
    open_ = cells != CELL_WALL
    assert set(np.unique(cells)) <= {CELL_FLOOR, CELL_WALL, CELL_DOOR_I, CELL_DOOR_H}
    assert np.all(cells[:, 0] == CELL_WALL) and np.all(cells[:, -1] == CELL_WALL)
    assert np.all(cells[:, :, 0] == CELL_WALL) and np.all(cells[:, :, -1] == CELL_WALL)
    first = np.zeros_like(open_)
    flat = open_.reshape(n, -1).argmax(1)
    first.reshape(n, -1)[np.arange(n), flat] = True
    reached = np.asarray(jax.jit(jax.vmap(flood_fill))(open_, first))
    assert np.array_equal(reached, open_), "some open cell is cut off"
    # rooms: odd sizes in range, inside the border, all floor, no two rooms touching
    assert m.room_valid.sum(1).min() >= 1
    for i in range(0, n, max(1, n // 300)):
        for r in np.flatnonzero(m.room_valid[i]):
            r0, c0, r1, c1 = m.room_box[i, r]
            for side in (r1 - r0 + 1, c1 - c0 + 1):
                assert side % 2 == 1 and params.room_min_size <= side <= params.room_max_size
            assert np.all(cells[i, r0:r1 + 1, c0:c1 + 1] == CELL_FLOOR)
            assert np.all(m.room_id[i, r0:r1 + 1, c0:c1 + 1] == r)
            ring = m.room_id[i, r0 - 1:r1 + 2, c0 - 1:c1 + 2].copy()
            ring[1:-1, 1:-1] = r
            assert np.all((ring == r) | (ring == -1)), "two rooms share a wall cell"


@pytest.mark.parametrize("params,n", [(SMALL, 10_000), (DOORS, 2_000)])
def test_corridors_have_no_dead_ends(params, n):
    m = batch(params, n)
    open_ = np.pad(m.cells != CELL_WALL, ((0, 0), (1, 1), (1, 1)))
    count = (open_[:, :-2, 1:-1].astype(int) + open_[:, 2:, 1:-1] + open_[:, 1:-1, :-2] + open_[:, 1:-1, 2:])
    assert not np.any(open_[:, 1:-1, 1:-1] & (m.room_id < 0) & (count <= 1))


def test_doors_sit_on_room_entrances_only():
    m = batch(DOORS, 2_000)
    door = (m.cells == CELL_DOOR_I) | (m.cells == CELL_DOOR_H)
    assert door.any()
    assert np.array_equal(door.sum((1, 2)), m.door_valid.sum(1))
    for i in range(200):
        for d in np.flatnonzero(m.door_valid[i]):
            r, c = m.door_cell[i, d]
            assert door[i, r, c] and m.room_id[i, r, c] == -1
            near = [m.room_id[i, r + dr, c + dc] for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
            assert m.door_room[i, d] in near
            # the door is crossed along its axis: walls on the two other sides
            if m.cells[i, r, c] == CELL_DOOR_I:
                assert m.cells[i, r - 1, c] == CELL_WALL and m.cells[i, r + 1, c] == CELL_WALL
            else:
                assert m.cells[i, r, c - 1] == CELL_WALL and m.cells[i, r, c + 1] == CELL_WALL
    assert not ((batch(SMALL, 10_000).cells == CELL_DOOR_I) | (batch(SMALL, 10_000).cells == CELL_DOOR_H)).any()


def test_mazes_vary_and_repeat_by_key_jitted_or_not():
    m = batch(SMALL, 10_000)
    assert len({c.tobytes() for c in m.cells[:500]}) > 450
    key = jax.random.split(jax.random.key(7), 10_000)[3]
    eager = generate_maze(key, SMALL)
    np.testing.assert_array_equal(np.asarray(eager.cells), m.cells[3])
    np.testing.assert_array_equal(np.asarray(eager.room_box), m.room_box[3])


def test_params_are_checked():
    for bad in (dict(height=10), dict(width=3), dict(room_min_size=4), dict(room_min_size=7, room_max_size=5),
                dict(room_max_size=21), dict(extra_connections=-1), dict(room_doors=1), dict(room_count=2.0),
                dict(remove_dead_ends=0)):
        with pytest.raises(ValueError, match="MazeParams"):
            MazeParams(**bad)
    with pytest.raises(TypeError):
        generate_maze(jax.random.key(0), {"height": 11})


def test_sampled_cells_are_distinct_and_inside_the_mask():
    mask = jnp.asarray(batch(SMALL, 10_000).cells[:256] == CELL_FLOOR)
    keys = jax.random.split(jax.random.key(1), 256)
    rc, valid = jax.vmap(lambda k, m: sample_cells(k, m, 6))(keys, mask)
    rc, valid, mask = map(np.asarray, (rc, valid, mask))
    for i in range(256):
        got = [tuple(x) for x in rc[i][valid[i]]]
        assert len(set(got)) == len(got) == min(6, mask[i].sum())
        assert all(mask[i][r, c] for r, c in got)
    one = np.zeros((5, 5), bool)
    one[2, 3] = True
    rc, valid = sample_cells(jax.random.key(0), jnp.asarray(one), 3)
    assert tuple(np.asarray(rc[0])) == (2, 3) and np.asarray(valid).tolist() == [True, False, False]
