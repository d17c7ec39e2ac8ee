"""rooms_keys_doors_puzzle: every drawn puzzle is solvable in its planned key order, traps exist,
and the kernel's keys and locked doors behave as the level needs."""
import functools
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import ndimage

import jaxlab
from jaxlab.levels.dmlab.dmlab30 import keys_doors, keys_doors_plan
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR
from jaxlab.levels.dmlab.object_catalogue import NUM_KEY_COLOURS, SHUT_LOCK

EPISODES = 10_000
SOLVER_SAMPLE = 2_000
GEN = keys_doors.GENERATORS["rooms_keys_doors_puzzle"]


@pytest.fixture(scope="module")
def batch():
    """(levels, plans) of EPISODES puzzles drawn in one jitted, vmapped call (numpy)."""
    keys = jax.random.split(jax.random.PRNGKey(2018), EPISODES)
    draw = jax.jit(jax.vmap(lambda k: GEN.episode_and_plan(k, jnp.int32(0))))
    t = time.time()
    levels, plans = jax.block_until_ready(draw(keys))
    print(f"\n{EPISODES} puzzles in {time.time() - t:.2f} s (with compilation)")
    return jax.tree_util.tree_map(np.asarray, levels), {k: np.asarray(v) for k, v in plans.items()}


def _cell(xy, rows):
    """(row, col) int arrays of world points xy [..., 2] (units)."""
    return (rows - 1 - np.floor(xy[..., 1] / 100.0)).astype(int), np.floor(xy[..., 0] / 100.0).astype(int)


def _one(levels, i):
    return jax.tree_util.tree_map(lambda a: a[i], levels)


def _puzzle(level):
    """The level as a room graph: (spawn component, doors [(a, b, lock)], keys [(component, colour)],
    goal component); components are floor regions with door cells as barriers."""
    cells = level.cells
    comp, _ = ndimage.label(cells == CELL_FLOOR)
    rows = cells.shape[0]
    doors = []
    for e in np.flatnonzero(level.door_valid):
        r, c = level.door_cell[e]
        assert cells[r, c] in (CELL_DOOR_I, CELL_DOOR_H)
        sides = sorted({comp[r + dr, c + dc] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))} - {0})
        assert len(sides) == 2, "a door joins exactly two regions"
        doors.append((sides[0], sides[1], int(level.door_lock[e])))
    keys, goal = [], None
    r, c = _cell(level.pickup_pos, rows)
    for n in np.flatnonzero(level.pickup_valid):
        if level.pickup_is_goal[n]:
            goal = comp[r[n], c[n]]
        else:
            keys.append((comp[r[n], c[n]], int(level.pickup_key[n])))
    sr, sc = _cell(level.spawn_pos[0], rows)
    return comp[sr, sc], doors, keys, goal


def _region(spawn, doors, opened):
    """The set of components reachable from ``spawn`` through open doors (bitmask ``opened``)."""
    region, grew = {spawn}, True
    while grew:
        grew = False
        for e, (a, b, lock) in enumerate(doors):
            if (lock == 0 or opened >> e & 1) and (a in region) != (b in region):
                region |= {a, b}
                grew = True
    return region


def _solve(puzzle):
    """Search every play of a puzzle over states (held key, opened doors, taken keys): keys are
    single use and one is held at a time. Returns (solvable, door_traps, key_traps): whether the
    goal can be reached from the start, and whether opening a door / taking a key can turn a
    winnable state into one from which the goal is lost."""
    spawn, doors, keys, goal = puzzle
    traps = {"door": False, "key": False}

    @functools.lru_cache(maxsize=None)
    def win(held, opened, taken):
        region = _region(spawn, doors, opened)
        if goal in region:
            return True
        moves = [("key", colour, opened, taken | 1 << k) for k, (room, colour) in enumerate(keys)
                 if not taken >> k & 1 and room in region]
        moves += [("door", 0, opened | 1 << e, taken) for e, (a, b, lock) in enumerate(doors)
                  if held > 0 and lock == held and not opened >> e & 1 and (a in region or b in region)]
        results = [(kind, win(*state)) for kind, *state in moves]
        ok = any(r for _, r in results)
        if ok:
            for kind, r in results:
                traps[kind] |= not r
        return ok

    return win(0, 0, 0), traps["door"], traps["key"]


def _planned_order_works(level, plan):
    """Follow the plan: take core key s, open core door s (s = 1..L), then reach the goal."""
    spawn, doors, keys, goal = _puzzle(level)
    door_of_edge = {tuple(p): e for e, p in enumerate(keys_doors.EDGE_ROOMS.tolist())}
    valid_index = {e: n for n, e in enumerate(np.flatnonzero(level.door_valid))}
    key_index = {n: k for k, n in enumerate(np.flatnonzero(level.pickup_valid & ~level.pickup_is_goal))}
    opened = 0
    for s in range(keys_doors_plan.MAX_CORE):
        colour = plan["core_colour"][s]
        if colour == 0:
            break
        region = _region(spawn, doors, opened)
        room, key_colour = keys[key_index[plan["core_key"][s]]]
        if room not in region or key_colour != colour:
            return False
        e = valid_index.get(door_of_edge[tuple(sorted(plan["core_door"][s]))])
        if e is None or doors[e][2] != colour or not ({doors[e][0], doors[e][1]} & region):
            return False
        opened |= 1 << e
    return goal in _region(spawn, doors, opened)


def test_cheap_checks_on_every_puzzle(batch):
    levels, plans = batch
    n = EPISODES
    rows = levels.cells.shape[1]
    r, c = _cell(levels.pickup_pos, rows)
    at = levels.cells[np.arange(n)[:, None], r, c]
    assert (at[levels.pickup_valid] == CELL_FLOOR).all(), "keys and goal on floor cells"
    assert (levels.pickup_is_goal & levels.pickup_valid).sum(1).tolist() == [1] * n
    keyed = levels.pickup_valid & ~levels.pickup_is_goal
    assert ((levels.pickup_key[keyed] >= 1) & (levels.pickup_key[keyed] <= NUM_KEY_COLOURS)).all()
    lock = levels.door_lock[levels.door_valid]
    assert (((lock >= 1) & (lock <= NUM_KEY_COLOURS)) | (lock == SHUT_LOCK)).all(), "door colours 1..6 or shut"
    dr, dc = levels.door_cell[..., 0], levels.door_cell[..., 1]
    door_cells = levels.cells[np.arange(n)[:, None], dr, dc]
    assert np.isin(door_cells[levels.door_valid], (CELL_DOOR_I, CELL_DOOR_H)).all()
    sr, sc = _cell(levels.spawn_pos, rows)
    assert (levels.cells[np.arange(n)[:, None], sr, sc] == CELL_FLOOR).all()
    np.testing.assert_allclose(levels.episode_seconds, 60.0)
    np.testing.assert_allclose(levels.pickup_reward[levels.pickup_is_goal & levels.pickup_valid], 50.0)
    np.testing.assert_allclose(levels.pickup_reward[keyed], 1.0)
    np.testing.assert_allclose(levels.unlock_reward, 1.0)
    assert (levels.end_after_pickups == 1).all()
    # the per-episode variations are used: many bank plans, both slot orders, every colour
    assert len(np.unique(plans["index"])) > 0.9 * keys_doors_plan.BANK_SIZE
    assert set(np.unique(plans["core_colour"][:, 0])) == {1, 2, 3, 4, 5}


def test_every_puzzle_solvable_in_planned_order(batch):
    levels, plans = batch
    bad = [i for i in range(EPISODES)
           if not _planned_order_works(_one(levels, i), {k: v[i] for k, v in plans.items()})]
    assert not bad, f"planned order fails for episodes {bad[:10]}"
    lengths = np.bincount((plans["core_colour"] > 0).sum(1), minlength=4)[1:]
    print(f"\ncore lengths 1/2/3: {lengths.tolist()}")
    assert (lengths > 0.25 * EPISODES).all()


def test_solver_finds_every_sampled_puzzle_solvable_and_traps_exist(batch):
    levels, _ = batch
    results = np.array([_solve(_puzzle(_one(levels, i))) for i in range(SOLVER_SAMPLE)])
    assert results[:, 0].all(), "every puzzle solvable"
    door_traps, key_traps = results[:, 1].mean(), results[:, 2].mean()
    print(f"\nwrong door strands the player in {door_traps:.1%}, wrong key in {key_traps:.1%} of puzzles")
    assert door_traps > 0.2 and key_traps > 0.2


def _near_door(level, e):
    """A point 60 units from door ``e``'s centre, inside a floor cell beside it (units)."""
    r, c = level.door_cell[e]
    centre = np.array([(c + 0.5) * 100.0, (level.cells.shape[0] - 1 - r + 0.5) * 100.0])
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        if level.cells[r + dr, c + dc] == CELL_FLOOR:
            return centre + 60.0 * np.array([dc, -dr])
    raise AssertionError("door without floor beside it")


def test_key_door_and_goal_behaviour():
    env = jaxlab.make("rooms_keys_doors_puzzle", width=16, height=12)
    step = jax.jit(env.step)
    init = jax.jit(env.init_state)
    noop = jnp.zeros(7, jnp.int32)
    for seed in range(50):      # a puzzle with a key, its door and a door of another colour
        state = init(jax.random.PRNGKey(seed), jnp.int32(0))
        level = jax.tree_util.tree_map(np.asarray, state.episode_level)
        valid_keys = np.flatnonzero(level.pickup_valid & (level.pickup_key > 0))
        found = [(k, e, w) for k in valid_keys for e in np.flatnonzero(level.door_valid)
                 for w in np.flatnonzero(level.door_valid)
                 if level.door_lock[e] == level.pickup_key[k] and level.door_lock[w] not in (0, level.pickup_key[k])]
        if found:
            break
    k, e, w = found[0]
    colour = int(level.pickup_key[k])
    state, ts = step(state.replace(pos=jnp.asarray(level.pickup_pos[k])), noop)
    assert float(ts.reward) == 1.0 and int(state.held_key) == colour and int(state.pickup_wait[k]) != 0
    state, ts = step(state.replace(pos=jnp.asarray(_near_door(level, w), jnp.float32)), noop)
    assert float(ts.reward) == 0.0 and int(state.door_lock[w]) == int(level.door_lock[w])
    assert int(state.held_key) == colour, "a wrong-colour door keeps the key"
    state, ts = step(state.replace(pos=jnp.asarray(_near_door(level, e), jnp.float32)), noop)
    assert float(ts.reward) == 1.0 and int(state.door_lock[e]) == 0 and int(state.held_key) == 0
    for _ in range(40):         # the unlocked door slides open while the player stands by it
        state, ts = step(state, noop)
    assert float(state.door_open[e]) == 1.0 and float(state.door_open[w]) == 0.0
    goal = int(np.flatnonzero(level.pickup_is_goal & level.pickup_valid)[0])
    state, ts = step(state.replace(pos=jnp.asarray(level.pickup_pos[goal])), noop)
    assert float(ts.reward) == 50.0 and bool(ts.extras["terminated"]) and bool(state.done)


def test_made_by_dmlab_path_and_bank_is_deterministic():
    env = jaxlab.make("contributed/dmlab30/rooms_keys_doors_puzzle", width=8, height=6)
    assert env.name == "rooms_keys_doors_puzzle" and env.generator is GEN
    a = jax.jit(GEN.episode)(jax.random.PRNGKey(7), 0)
    b = jax.jit(GEN.episode)(jax.random.PRNGKey(7), 0)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    fresh = keys_doors_plan.plan_bank.__wrapped__()   # built again, not from the cache
    for name, arr in keys_doors_plan.plan_bank().items():
        np.testing.assert_array_equal(fresh[name], arr)


def test_the_held_key_is_drawn_in_the_top_left_corner():
    from jaxlab.kernels.first_person.observations import held_key_square
    from jaxlab.levels.dmlab.object_catalogue import KEY_RGB

    frame = jnp.full((72, 96, 4), 7, jnp.uint8)
    np.testing.assert_array_equal(np.asarray(held_key_square(frame, jnp.int32(0))), np.asarray(frame))
    drawn = np.asarray(jax.jit(held_key_square)(frame, jnp.int32(2)))
    np.testing.assert_array_equal(drawn[10, 10, :3], KEY_RGB[1])
    assert np.all(drawn[..., 3] == 7) and np.all(drawn[40:, 40:] == 7)       # depth and the rest untouched
