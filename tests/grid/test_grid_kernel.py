"""The grid kernel's rules on small hand-made worlds: pushing, contacts,
topology, relative moves and turns, beams stopped by walls, rendering,
determinism, and clear errors for bad specs and actions."""
import dataclasses
import functools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.errors import UnknownNameError
from jaxlab.grid import pushbox_from_lab2d_text, world_text
from jaxlab.kernels.grid.compile import GridSpecError, compile_grid
from jaxlab.kernels.grid.env import GridEnv
from jaxlab.levels import lab2d as levels
from jaxlab.levels.lab2d import pushbox
from jaxlab.levels.lab2d.spec import DIRECTIONS, Beam, BeamHit, Contact, Player, Sprite, State, Transition, GridSpec
from jaxlab.render.grid import frames as render

RED = Sprite(rows=("rr", "rr"), palette={"r": (200, 0, 0)})
DOT = Sprite(rows=("..", ".g"), palette={".": (0, 0, 0, 0), "g": (0, 200, 0)})


@functools.lru_cache(maxsize=None)
def pushbox_env():
    """The default pushbox env and its jitted step (shared by the pushbox tests)."""
    env = GridEnv(pushbox.build(), observations=[], layouts=0)
    return env, jax.jit(env.step)


def play(rows, moves):
    """Play MOVE actions from the 10×10 pushbox room ``rows`` (padded with
    walls); returns the states and time steps, the first of each at the start."""
    rows = [r.ljust(10, "*") for r in rows] + ["*" * 10] * (10 - len(rows))
    env, step = pushbox_env()
    state = pushbox_from_lab2d_text("".join(r + "\n" for r in rows))
    states, steps = [state], [None]
    for m in moves:
        state, ts = step(state, {"MOVE": jnp.int32(m)})
        states.append(state)
        steps.append(ts)
    return states, steps


def text(state, width):
    """The rows of a pushbox state's WORLD.TEXT, cut to the room's width."""
    return [row[:width] for row in world_text(state).splitlines()]


N, E, S, W = 1, 2, 3, 4


def test_pushed_box_moves_unless_blocked():
    states, steps = play(["*******",
                          "*P B  *",
                          "*   B *",
                          "*    XX",
                          "*******"], [E, E, E, E, S, S, W, E])
    rows = [text(s, 7) for s in states]
    assert rows[0][1] == "*P B  *"
    assert rows[1][1] == "* PB  *"        # walks up to the box
    assert rows[2][1] == "*  PB *"        # pushes it one cell
    assert rows[3][1] == "*   PB*"        # pushes it up to the wall
    assert rows[4] == rows[3]             # against the wall: neither box nor player moves
    assert rows[5][1:4] == ["*    B*", "*   P *", "*   BXX"]   # pushes the lower box south
    assert rows[6] == rows[5]             # against the wall again
    assert rows[7][2] == "*  P  *"        # walks away
    assert rows[8] == rows[5]
    assert [float(t.reward) for t in steps[1:]] == pytest.approx([-0.1] * 8)


def test_box_blocked_by_box():
    states, _ = play(["******",
                      "*PBB *",
                      "*B   *",
                      "*B  X*",
                      "*  XXX",
                      "******"], [E, S])
    rows = [text(s, 6) for s in states]
    assert rows[1] == rows[0]             # a box with a box behind it: nothing moves
    assert rows[2] == rows[0]             # likewise downwards


def test_goal_rewards_and_completion():
    states, steps = play(["******",
                          "*PBX *",
                          "*  X *",
                          "*  B *",
                          "******"], [E, E, W])
    # box onto goal: +1 - 0.1; the goal shows '&'
    assert float(steps[1].reward) == pytest.approx(0.9)
    assert text(states[1], 6)[1] == "* P& *"
    # pushing it off the goal: -1 - 0.1; the goal is drawn over the player on it
    assert float(steps[2].reward) == pytest.approx(-1.1)
    assert text(states[2], 6)[1] == "*  XB*"
    assert np.asarray(states[2].pos[0]).tolist() == [1, 3]
    assert text(states[3], 6)[1] == "* PXB*"
    assert not bool(steps[3].last())

    states, steps = play(["******",
                          "*PBX *",
                          "******"], [E, E])
    assert float(steps[1].reward) == pytest.approx(1 - 0.1 + 10)   # every goal filled: +10, terminated
    assert bool(steps[1].last()) and float(steps[1].discount) == 0.0
    assert bool(steps[2].last()) and float(steps[2].reward) == 0.0   # a finished episode stays finished


def test_episode_length_truncates():
    env, step = pushbox_env()
    state = pushbox_from_lab2d_text("".join(r.ljust(10, "*") + "\n" for r in ["*****", "*P X*", "* B *"] + ["*"] * 7))
    state = state.replace(frame=jnp.int32(env.spec.episode_frames - 2))
    state, ts = step(state, {"MOVE": jnp.int32(0)})
    assert not bool(ts.last())
    state, ts = step(state, {"MOVE": jnp.int32(0)})
    assert bool(ts.last()) and float(ts.discount) == 1.0 and bool(ts.extras["truncated"])


def walker_world(topology="bounded", movement="absolute", rows=None):
    """Two walkers, apples that become eaten on contact, a zap beam stopped by walls."""
    states = (
        State("spawn", "ground"),
        State("wall", "avatars", RED, "#", blocks_beams=True),
        State("apple", "items", DOT, "a"),
        State("eaten", "items"),
        State("p1", "avatars", RED, "1"),
        State("p2", "avatars", RED, "2"),
        State("zap", "overlay", DOT, "z"),
    )
    return GridSpec(
        name="walkers", map=tuple(rows or ("1  a ", "     ", "  #  ", "    2")),
        char_map={" ": (), "#": ("wall",), "a": ("apple",), "1": ("spawn",), "2": ("spawn",)},
        layers=("ground", "items", "avatars", "overlay"), states=states,
        players=(Player("p1", "spawn"), Player("p2", "spawn")),
        contacts=(Contact("p1", "apple", becomes="eaten", reward=1.0),),
        beams=(Beam("fireZap", length=4, radius=0, overlay="zap"),),
        beam_hits=(BeamHit("fireZap", "p2", target_reward=-1.0, freeze_frames=3),),
        transitions=(Transition("eaten", "apple", (0.0, 0.3), neighbour="apple", radius=2),),
        topology=topology, movement=movement, episode_frames=50)


@functools.lru_cache(maxsize=None)
def walkers(topology="bounded", movement="absolute", rows=None, observations=("1.REWARD", "2.REWARD")):
    """A walker-world env and its jitted step (cached per arguments)."""
    env = GridEnv(walker_world(topology, movement, rows), observations=list(observations))
    return env, jax.jit(env.step)


def place(state, world, p, row, col, orient=0):
    """``state`` with player p moved to (row, col) facing ``orient``."""
    la = world.avatar_layer
    r0, c0 = np.asarray(state.pos[p])
    grid = state.grid.at[la, r0, c0].set(0).at[la, row, col].set(int(world.player_state[p]))
    return state.replace(grid=grid, pos=state.pos.at[p].set(jnp.array([row, col])),
                         orientation=state.orientation.at[p].set(orient))


def test_torus_wraps_and_bounded_blocks():
    for topology, expect in (("torus", [3, 0]), ("bounded", [0, 0])):
        env, step = walkers(topology, observations=("1.POSITION",))
        state, _ = env.reset(jax.random.PRNGKey(0))
        state = place(state, env.world, 0, 0, 0)
        state, ts = step(state, {"1.move": N})
        assert np.asarray(state.pos[0]).tolist() == expect, topology
        assert np.asarray(ts.observation["1.POSITION"]).tolist() == expect[::-1]   # (x, y)


def test_relative_moves_turns_contacts_and_beams():
    env, step = walkers(movement="relative")
    w = env.world
    state, _ = env.reset(jax.random.PRNGKey(1))
    state = place(place(state, w, 0, 0, 1), w, 1, 3, 4)
    # turn right (now facing E) and move forward: one cell east
    state, ts = step(state, {"1.turn": 1, "1.move": 1})
    assert int(state.orientation[0]) == 1 and np.asarray(state.pos[0]).tolist() == [0, 2]
    # forward again onto the apple: +1, the apple becomes eaten
    state, ts = step(state, {"1.move": 1})
    assert np.asarray(state.pos[0]).tolist() == [0, 3]
    assert float(ts.observation["1.REWARD"]) == 1.0
    assert int(state.grid[w.layers.index("items"), 0, 3]) == w.state_id("eaten")
    # "move right" relative to facing E is south
    state, _ = step(state, {"1.move": 2})
    assert np.asarray(state.pos[0]).tolist() == [1, 3]
    # facing S from (0, 4), the zap reaches player 2 at (3, 4)
    state = place(state, w, 0, 0, 4, orient=2)
    state, ts = step(state, {"1.fireZap": 1})
    assert float(ts.observation["2.REWARD"]) == -1.0 and int(state.frozen[1]) == 3
    assert bool((state.grid[w.layers.index("overlay"), 1:3, 4] == w.state_id("zap")).all())
    # a frozen player cannot move for 3 frames
    before = np.asarray(state.pos[1]).tolist()
    for _ in range(3):
        state, _ = step(state, {"2.move": 1})
        assert np.asarray(state.pos[1]).tolist() == before
    state, _ = step(state, {"2.move": 1})
    assert np.asarray(state.pos[1]).tolist() != before
    # a wall stops the beam: player 2 behind the wall at (2, 2) from (0, 2) facing S is safe
    state = place(place(state, w, 0, 0, 2, orient=2), w, 1, 3, 2)
    state, ts = step(state, {"1.fireZap": 1})
    assert float(ts.observation["2.REWARD"]) == 0.0
    assert int(state.grid[w.layers.index("overlay"), 1, 2]) == w.state_id("zap")
    assert int(state.grid[w.layers.index("overlay"), 3, 2]) == 0


def random_actions(env, key, batch):
    """A dict of uniformly random actions for ``batch`` envs."""
    return {name: jax.random.randint(jax.random.fold_in(key, i), (batch,), spec.minimum, spec.maximum + 1)
            for i, (name, spec) in enumerate(sorted(env.action_spec().items()))}


def test_same_key_same_trajectory_at_any_batch_size():
    env, _ = walkers(movement="relative")
    step = jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(7), 3)
    big, _ = jax.vmap(env.reset)(keys)
    one, _ = jax.vmap(env.reset)(keys[1:2])
    state, _ = env.reset(keys[1])
    for t in range(12):
        acts = random_actions(env, jax.random.PRNGKey(t), 3)
        big, ts_big = step(big, acts)
        one, ts_one = step(one, jax.tree.map(lambda a: a[1:2], acts))
        chex.assert_trees_all_equal(jax.tree.map(lambda a: a[1:2], (big, ts_big)), (one, ts_one))
        if t < 1:   # unjitted and unbatched (slow, so once): the same as element 1
            state, _ = env.step(state, jax.tree.map(lambda a: a[1], acts))
            chex.assert_trees_all_equal(state, jax.tree.map(lambda a: a[1], big))


@pytest.mark.parametrize("name", jaxlab.levels.names(family="lab2d"))
def test_precomposited_looks_match_layer_compositing(name):
    world = compile_grid(levels.build(name))
    plain = dataclasses.replace(world, appearance=None)
    assert world.appearance is not None
    rng = np.random.default_rng(0)
    grid = np.zeros((len(world.layers), world.height, world.width), np.int32)
    for l in range(len(world.layers)):      # any state of each layer, or empty, in every cell
        choices = np.concatenate([[0], np.flatnonzero(world.state_layer == l)])
        grid[l] = rng.choice(choices, size=grid.shape[1:])
    grid = jnp.asarray(grid)
    np.testing.assert_array_equal(render.world_rgb(world, grid), render.world_rgb(plain, grid))
    for orient in range(4):
        args = (grid, jnp.array([world.height // 2, 1]), jnp.int32(orient))
        np.testing.assert_array_equal(render.player_rgb(world, *args), render.player_rgb(plain, *args))


def test_player_view_is_rotated_to_face_up():
    rows = ("     ", "  a  ", "     ", "1   2")
    env = GridEnv(walker_world(rows=rows), observations=["1.RGB"])   # observed without stepping
    w = env.world
    state, _ = env.reset(jax.random.PRNGKey(0))
    v = w.spec.view
    for orient, (dr, dc) in enumerate(DIRECTIONS):
        # the apple at (1, 2); the player one cell before it, facing it
        row, col = 1 - dr, 2 - dc
        s = place(state, w, 0, row, col, orient)
        image = np.asarray(env.observe(s)["1.RGB"])
        size = w.spec.sprite_size
        cell = image[(v.forward - 1) * size:v.forward * size, v.left * size:(v.left + 1) * size]
        assert (cell == (0, 200, 0)).all(axis=-1).any(), orient   # the apple is straight ahead


def test_bad_specs_are_named():
    good = walker_world()
    with pytest.raises(GridSpecError, match="same length"):
        compile_grid(dataclasses.replace(good, map=("1  a ", "   ")))
    with pytest.raises(GridSpecError, match=r"row 1, column 2: character '\?'"):
        compile_grid(dataclasses.replace(good, map=("1? a ", "    2")))
    with pytest.raises(GridSpecError, match="Did you mean 'apple'"):
        compile_grid(dataclasses.replace(good, contacts=(Contact("p1", "aple", becomes="eaten"),)))
    with pytest.raises(GridSpecError, match="square"):
        bad = State("apple", "items", Sprite(rows=("ab", "a"), palette={"a": (1, 1, 1), "b": (2, 2, 2)}))
        compile_grid(dataclasses.replace(good, states=(bad,) + good.states[:2] + good.states[3:]))
    with pytest.raises(GridSpecError, match="stays on its layer"):
        compile_grid(dataclasses.replace(good, contacts=(Contact("p1", "apple", becomes="zap"),)))


def test_bad_actions_and_observations():
    env = GridEnv(walker_world(), observations=[])
    state, _ = env.reset(jax.random.PRNGKey(0))
    with pytest.raises(UnknownNameError, match="1.move"):
        env.step(state, {"1.mvoe": 1})
    with pytest.raises(UnknownNameError, match="1.RGB"):
        GridEnv(walker_world(), observations=["1.RBG"])
    with pytest.raises(ValueError, match="host string"):
        GridEnv(walker_world(), observations=["WORLD.TEXT"])


def test_spawn_cells_are_picked_evenly():
    env = GridEnv(levels.build("jaxlab_commons_harvest", {"numPlayers": 1}), observations=[])
    spawns = {tuple(c) for c in np.argwhere(np.asarray(env.world.initial_map) == ord("P")).tolist()}
    states, _ = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), 600))
    picked = [tuple(p) for p in np.asarray(states.pos[:, 0]).tolist()]
    assert set(picked) == spawns                          # every spawn cell is used, nothing else
    counts = np.array([picked.count(c) for c in sorted(spawns)])
    mean = len(picked) / len(spawns)
    assert counts.min() > mean / 2 and counts.max() < mean * 2, counts
