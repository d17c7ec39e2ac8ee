"""Grid layouts as a ``jaxlab.Bank``: one jitted, vmapped batch whose envs start from different
pushbox rooms of one bank, each playing by its own room."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.bank import Bank
from jaxlab.grid import world_text
from jaxlab.kernels.grid.env import GridEnv
from jaxlab.kernels.grid.kernel import generate_layouts
from jaxlab.levels.lab2d import pushbox
from jaxlab.levels.lab2d.layout import GridLayout

EAST = 2
# 10×10 rooms, the player at row 1, column 1: a wall east of it, floor east of it, a box east of it
WALLED, FREE, PUSH = (
    ["**********", "*P*      *", "*  B  X  *"],
    ["**********", "*P       *", "*  B  X  *"],
    ["**********", "*PB      *", "*     X  *"],
)


def room_text(rows) -> str:
    """WORLD.TEXT of a 10×10 room given by its first rows (the rest, and the ends of rows, walls)."""
    rows = [r.ljust(10, "*") for r in rows] + ["*" * 10] * (10 - len(rows))
    return "".join(r + "\n" for r in rows)


def chars(text: str) -> np.ndarray:
    """uint8[H, W] map characters of a WORLD.TEXT."""
    return np.array([[ord(c) for c in row] for row in text.splitlines()], np.uint8)


@functools.lru_cache(maxsize=None)
def hand_env():
    rooms = [room_text(r) for r in (WALLED, FREE, PUSH)]
    bank = Bank.stack([GridLayout(chars=chars(t)) for t in rooms])
    env = GridEnv(pushbox.build(), observations=["1.POSITION"], layouts=bank)
    return env, rooms


def test_batch_of_rooms_starts_from_the_bank_and_moves_per_room():
    env, rooms = hand_env()
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    states = jax.jit(jax.vmap(env.init_state))(keys, jnp.arange(3, dtype=jnp.int32))
    starts = [world_text(jax.tree_util.tree_map(lambda a, i=i: a[i], states), env) for i in range(3)]
    assert starts == rooms and len(set(starts)) == 3
    step = jax.jit(jax.vmap(env.step))
    states, ts = step(states, {"MOVE": jnp.full(3, EAST, jnp.int32)})
    # x = column, y = row: blocked by the wall, one cell east, one cell east pushing the box
    assert np.asarray(ts.observation["1.POSITION"]).tolist() == [[1, 1], [2, 1], [2, 1]]
    after = [world_text(jax.tree_util.tree_map(lambda a, i=i: a[i], states), env).splitlines()[1]
             for i in range(3)]
    assert after == ["*P*      *", "* P      *", "* PB     *"]


def test_reset_without_an_index_draws_from_the_bank():
    env, rooms = hand_env()
    states = jax.jit(jax.vmap(env.init_state))(jax.random.split(jax.random.PRNGKey(1), 12))
    texts = {world_text(jax.tree_util.tree_map(lambda a, i=i: a[i], states), env) for i in range(12)}
    assert texts <= set(rooms) and len(texts) > 1


def test_generated_bank_batch_matches_each_env_alone():
    """Envs on different generated rooms, stepped together under jit(vmap), follow the trajectories
    each has alone (same key, same room, same actions)."""
    spec = pushbox.build()
    env = GridEnv(spec, observations=["1.POSITION", "WORLD.LAYER"], layouts=generate_layouts(
        GridEnv(spec, observations=[], layouts=0).world, 5, seed=3))
    count, steps = env.layouts.size, 8
    index = jnp.arange(count, dtype=jnp.int32)
    keys = jax.random.split(jax.random.PRNGKey(2), count)
    moves = jax.random.randint(jax.random.PRNGKey(4), (steps, count), 0, 5, dtype=jnp.int32)
    states = jax.jit(jax.vmap(env.init_state))(keys, index)
    grids = np.asarray(states.grid)
    assert len({g.tobytes() for g in grids}) == count   # every env starts from its own room
    for i in range(count):
        assert world_text(jax.tree_util.tree_map(lambda a, i=i: a[i], states), env) == "".join(
            "".join(map(chr, row)) + "\n" for row in np.asarray(env.layouts.get(i).chars))
    batch_step, one_step = jax.jit(jax.vmap(env.step)), jax.jit(env.step)
    batched = []
    for t in range(steps):
        states, ts = batch_step(states, {"MOVE": moves[t]})
        batched.append(np.asarray(ts.observation["WORLD.LAYER"]))
    for i in range(count):
        state = jax.jit(env.init_state)(keys[i], index[i])
        for t in range(steps):
            state, ts = one_step(state, {"MOVE": moves[t, i]})
            np.testing.assert_array_equal(np.asarray(ts.observation["WORLD.LAYER"]), batched[t][i], err_msg=f"{i}, {t}")
    assert len({b.tobytes() for b in batched[-1]}) == count


def test_layouts_argument_errors():
    spec = pushbox.build()
    small = Bank.stack([GridLayout(chars=np.full((4, 4), ord("*"), np.uint8))])
    with pytest.raises(ValueError, match=r"chars \[N, 10, 10\].*\[1, 4, 4\]"):
        GridEnv(spec, observations=[], layouts=small)
    env = GridEnv(spec, observations=[], layouts=0)
    assert env.layouts is None
    with pytest.raises(ValueError, match="no layout bank"):
        env.init_state(jax.random.PRNGKey(0), 0)


def test_generated_layouts_are_made_once_per_level_settings_and_size():
    a = GridEnv(pushbox.build(), observations=[], layouts=3)
    b = GridEnv(pushbox.build(), observations=[], layouts=3)
    c = GridEnv(pushbox.build({"numBoxes": 2}), observations=[], layouts=3)
    assert a.layouts is b.layouts and a.layouts.size == 3
    assert c.layouts is not a.layouts
