"""On-device pushbox room generator: structure, determinism, solvability."""
import collections

import jax
import numpy as np
import pytest

from jaxlab.levels.lab2d.pushbox_rooms import (
    generate_room, generate_room_and_solution, room_to_text)

MOVES = {1: (-1, 0), 2: (0, 1), 3: (1, 0), 4: (0, -1)}  # N E S W, row 0 north
CHARS = set("* BX&P")
N_KEYS = 64


def _in_batches_of_8(fn, keys):
    """fn over keys, 8 at a time (one compile per batch size), as numpy."""
    outs = [fn(keys[i:i + 8]) for i in range(0, len(keys), 8)]
    return tuple(np.concatenate([np.asarray(o[j]) for o in outs])
                 for j in range(len(outs[0])))


@pytest.fixture(scope="module")
def default_batch():
    """64 rooms from jit(vmap(...)) at batch size 8."""
    keys = jax.random.split(jax.random.key(2024), N_KEYS)
    rooms, sols = _in_batches_of_8(jax.jit(jax.vmap(generate_room_and_solution)), keys)
    return keys, rooms, sols


@pytest.fixture(scope="module")
def wide_batch():
    keys = jax.random.split(jax.random.key(7), 16)
    gen = jax.vmap(lambda k: generate_room_and_solution(k, 12, 14, 3))
    return _in_batches_of_8(gen, keys)


def _text(room):
    return [bytes(row).decode("ascii") for row in np.asarray(room, np.uint8)]


def _check_structure(room, num_boxes):
    rows = _text(room)
    w = len(rows[0])
    flat = "".join(rows)
    assert set(flat) <= CHARS, room_to_text(room)
    assert flat.count("P") == 1
    assert flat.count("B") + flat.count("&") == num_boxes
    assert flat.count("X") + flat.count("&") == num_boxes
    assert flat.count("B") >= 1, "some box must start off a goal"
    assert set(rows[0]) == set(rows[-1]) == {"*"}
    assert {r[0] for r in rows} == {r[-1] for r in rows} == {"*"}
    # Every non-wall cell is reachable from the player (4-connected).
    start = divmod(flat.index("P"), w)
    seen, todo = {start}, collections.deque([start])
    while todo:
        r, c = todo.popleft()
        for dr, dc in MOVES.values():
            n = (r + dr, c + dc)
            if rows[n[0]][n[1]] != "*" and n not in seen:
                seen.add(n)
                todo.append(n)
    assert len(seen) == sum(ch != "*" for ch in flat)


def _solves(room, moves):
    """Forward Sokoban play in numpy: True when every box ends on a goal."""
    rows = _text(room)
    wall = np.array([[ch == "*" for ch in r] for r in rows])
    box = np.array([[ch in "B&" for ch in r] for r in rows])
    goal = np.array([[ch in "X&" for ch in r] for r in rows])
    flat = "".join(rows)
    p = divmod(flat.index("P"), len(rows[0]))
    for m in np.asarray(moves):
        if m == 0:
            continue
        dr, dc = MOVES[int(m)]
        t = (p[0] + dr, p[1] + dc)
        if wall[t]:
            continue
        if box[t]:
            b = (t[0] + dr, t[1] + dc)
            if wall[b] or box[b]:
                continue
            box[t], box[b] = False, True
        p = t
    return bool(np.all(box == goal))


def test_shapes_and_dtypes(default_batch):
    _, rooms, sols = default_batch
    assert rooms.shape == (N_KEYS, 10, 10) and rooms.dtype == np.uint8
    assert sols.ndim == 2 and sols.shape[0] == N_KEYS and sols.dtype == np.int32
    assert sols.min() >= 0 and sols.max() <= 4


def test_room_structure(default_batch):
    _, rooms, _ = default_batch
    for room in rooms:
        _check_structure(room, 4)


def test_rooms_look_like_lab2d(default_batch):
    _, rooms, _ = default_batch
    open_cells = (rooms != ord("*")).sum(axis=(1, 2))
    assert 20 <= open_cells.mean() <= 45  # an irregular room of a few tens
    assert (rooms == ord("B")).sum(axis=(1, 2)).mean() >= 3  # well scrambled


def test_solutions_solve(default_batch):
    _, rooms, sols = default_batch
    for room, moves in zip(rooms, sols):
        assert _solves(room, moves), room_to_text(room)
        n = int((moves > 0).sum())
        assert np.all(moves[:n] > 0) and np.all(moves[n:] == 0)


def test_different_keys_differ(default_batch):
    _, rooms, _ = default_batch
    assert len({r.tobytes() for r in rooms}) == N_KEYS


def test_deterministic_jit_eager_and_batch_size(default_batch):
    keys, rooms, sols = default_batch  # jitted, batch 8
    room, sol = generate_room_and_solution(keys[3])  # no jit, no batch
    np.testing.assert_array_equal(np.asarray(room), rooms[3])
    np.testing.assert_array_equal(np.asarray(sol), sols[3])
    np.testing.assert_array_equal(np.asarray(generate_room(keys[3])), rooms[3])
    one = jax.vmap(generate_room)(keys[3:4])  # batch 1, no jit
    np.testing.assert_array_equal(np.asarray(one)[0], rooms[3])


def test_other_size(wide_batch):
    rooms, sols = wide_batch
    assert rooms.shape == (16, 12, 14) and rooms.dtype == np.uint8
    for room, moves in zip(rooms, sols):
        _check_structure(room, 3)
        assert _solves(room, moves), room_to_text(room)


def test_bad_sizes_rejected():
    with pytest.raises(ValueError):
        generate_room(jax.random.key(0), height=3, width=3)
    with pytest.raises(ValueError):
        generate_room(jax.random.key(0), height=4, width=4, num_boxes=4)
    with pytest.raises(ValueError):
        generate_room(jax.random.key(0), num_boxes=0)
