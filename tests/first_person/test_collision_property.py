"""Property: no sequence of actions ever leaves the player's box inside a wall or closed door."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxlab
from jaxlab.levels.dmlab.actions import ACTION_MAX, ACTION_MIN
from jaxlab.levels.dmlab.map_parser import CELL_WALL
from jaxlab.levels.dmlab.units import PLAYER_RADIUS

MAP = """
***********
*P  *   I *
* * * * * *
*   I   * *
** ****   *
*P      * *
***********
"""
STEPS = 48

action = st.tuples(*[st.integers(int(lo), int(hi)) for lo, hi in zip(ACTION_MIN, ACTION_MAX)])
# look mostly small so that the player walks into walls at many angles
small_look = st.tuples(st.integers(-40, 40), st.integers(-20, 20), *[st.integers(int(lo), int(hi))
                       for lo, hi in zip(ACTION_MIN[2:], ACTION_MAX[2:])])


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    path = tmp_path_factory.mktemp("maps") / "rooms.txt"
    path.write_text(MAP)
    env = jaxlab.make(str(path), observations=("DEBUG.POS.TRANS",), action_repeat=3)
    level = jax.tree_util.tree_map(np.asarray, env.bank.get(0))

    @jax.jit
    def play(key, actions):
        state, _ = env.reset(key)

        def body(state, a):
            state, _ = env.step(state, a)
            return state, (state.pos, state.door_open)

        return jax.lax.scan(body, state, actions)[1]

    return level, play


def overlaps_solid(level, pos, door_open):
    """True if the player's box at ``pos`` overlaps a wall or a closed door cell."""
    rows = int(level.rows)
    for dx in (-PLAYER_RADIUS + 1e-3, PLAYER_RADIUS - 1e-3):
        for dy in (-PLAYER_RADIUS + 1e-3, PLAYER_RADIUS - 1e-3):
            col = int(np.floor((pos[0] + dx) / 100))
            row = rows - 1 - int(np.floor((pos[1] + dy) / 100))
            door = level.door_index[row, col]
            if level.cells[row, col] == CELL_WALL or (door >= 0 and door_open[door] < 1):
                return True
    return False


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), acts=st.lists(st.one_of(action, small_look), min_size=STEPS, max_size=STEPS))
def test_never_inside_a_wall(world, seed, acts):
    level, play = world
    positions, doors = play(jax.random.PRNGKey(seed), jnp.asarray(np.array(acts, np.int32)))
    for pos, door_open in zip(np.asarray(positions), np.asarray(doors)):
        assert not overlaps_solid(level, pos, door_open), f"player box at {pos} overlaps a solid cell"
