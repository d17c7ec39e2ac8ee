"""jaxlab's Lab2D grid engine (``jaxlab.kernels.lab2d_grid``) against dmlab2d's own.

The workshop level (``lab2d_grid_levels/workshop.lua``, our own script to Lab2D's ``system.grid_world``
API) runs in dmlab2d, and compiled from the same Lua (state callbacks and all) on jaxlab's kernel under
``jax.jit(jax.vmap(...))``. Both play the same actions: random players, and scripted ones that push boxes
onto goals and off them again. At every step the grid's text, the player's place and facing, an area
query, a ray cast, three layer views (the whole grid, a window ahead of the player reaching past the
grid's edge, a centered window turned away from the player's facing), two of them painted by a tile set
with see-through sprites, and the reward must be equal.
The level has one mover, so Lab2D's random visiting order never decides anything; the test checks that
the episodes exercised what they are meant to (pushes, blocked moves, contacts that change state,
a state change that waits for its cell, teleports, beams absorbed or not, pieces made and removed).
"""
from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.errors import UnknownNameError
from jaxlab.kernels.lab2d_grid import pieces, update
from jaxlab.kernels.lab2d_grid.state import NO_FREE_SLOT, QUEUE_FULL, GridRules, empty_grid
from jaxlab.levels.lab2d.grid_world import GridWorldError, world_from_config

import jaxlab
from compile_lua.loading import load_script
from lab2d_reference import action_spec, batched_play, dmlab2d_trajectory, random_actions

LEVELS = Path(__file__).parent / "lab2d_grid_levels"
RANDOM_EPISODES = 60
#: observations besides the text, compared exactly (the layer views and their paintings included)
VECTORS = ("PLAYER", "NEAR", "RAY", "WORLD.LAYER", "WORLD.RGB", "PLAYER.LAYER", "PLAYER.RGB", "CENTERED.LAYER")
STEPS = 39   # the level ends after 40
E, S, W = 2, 3, 4   # MOVE values
SCRIPTS = {
    "box onto the corner goal, then blocked": [E] * 6 + [W] * 3,
    "box onto a goal and off it, then blocked": [E, E, E, S, S, S, S],
}


def _episodes():
    spec = action_spec(LEVELS, "workshop")
    names = list(spec)
    episodes = [(seed, random_actions(spec, STEPS, seed)) for seed in range(RANDOM_EPISODES)]
    for i, moves in enumerate(SCRIPTS.values()):
        tail = random_actions(spec, STEPS - len(moves), 1000 + i)
        episodes.append((1000 + i, [{"MOVE": m} for m in moves] + tail))
    return names, episodes


@pytest.fixture(scope="module")
def played():
    """(dmlab2d's runs, jaxlab's observations, rewards and error bits of every episode, the episodes and
    actions, and the jitted batched play of the compiled level)."""
    names, episodes = _episodes()
    runs = [dmlab2d_trajectory(LEVELS, "workshop", seed=seed, actions=actions) for seed, actions in episodes]
    table = jnp.asarray([[[a.get(n, 0) for n in names] for a in actions] for _, actions in episodes], jnp.int32)
    keys = jnp.zeros(len(episodes), jnp.int32)   # the level draws nothing that decides anything
    play = batched_play(jaxlab.make(str(LEVELS / "workshop.lua")), names)
    obs, rewards, _, errors = play(keys, table)
    return runs, jax.tree_util.tree_map(np.asarray, obs), np.asarray(rewards), np.asarray(errors), keys, table, play


def test_every_step_matches_dmlab2d(played):
    runs, obs, rewards, errors = played[:4]
    assert not errors.any()
    for e, run in enumerate(runs):
        steps = len(run["rewards"])
        assert steps == STEPS   # the episode runs to its end (STEPS + 1 frames would end it)
        texts = [bytes(frame.reshape(-1)).decode() for frame in obs["WORLD.TEXT"][e, :steps + 1]]
        assert texts == list(run["observations"]["WORLD.TEXT"][:steps + 1]), e
        for name in VECTORS:   # the whole episode at once
            np.testing.assert_array_equal(obs[name][e, :steps + 1], run["observations"][name][:steps + 1],
                                          err_msg=f"{e} {name}")
        np.testing.assert_allclose(rewards[e, :steps], run["rewards"], atol=1e-6, err_msg=str(e))


def test_the_episodes_exercise_the_engine(played):
    runs = played[0]
    texts = [run["observations"]["WORLD.TEXT"] for run in runs]
    rewards = np.concatenate([run["rewards"] for run in runs])
    seen = {
        "a box entered a goal (+2)": np.any(np.isclose(rewards % 1, 0) & (rewards >= 2) & (rewards < 10)),
        "saplings grew at once in a loop over a query (+10 each)": np.any(rewards >= 10),
        "a box left a goal (-2)": np.any(rewards <= -2),
        "a blocked move (-0.25)": np.any(~np.isclose(rewards % 1, 0)),
        "a trap rose once the player left": any("#" in t for ts in texts for t in ts),
        "the teleporter took the player to the exit": any(tuple(p[:2]) == (7, 4) for run in runs
                                                          for p in run["observations"]["PLAYER"]),
        "a beam was drawn": any("=" in t for ts in texts for t in ts),
        "a sapling was planted": any(t.count("s") + t.count("t") > 2 for ts in texts for t in ts),
        "a tree was felled": any(b.count("t") < a.count("t") for ts in texts for a, b in zip(ts, ts[1:])),
        "a ray cast hit nothing": any(r[0] == 0 for run in runs for r in run["observations"]["RAY"]),
        "the player's window reached past the grid": _shows(runs, "PLAYER.LAYER", "OutOfBounds"),
        "the centered window cut cells out of view": _shows(runs, "CENTERED.LAYER", "OutOfView"),
    }
    assert all(seen.values()), [k for k, v in seen.items() if not v]


def _world():
    """The workshop's world as its Lua declares it (init run in jaxlab's sandbox)."""
    loaded = load_script(LEVELS / "workshop.lua")
    loaded.sandbox.call_method(loaded.returned, "init", {})
    return world_from_config(loaded.sandbox.to_python(loaded.returned["_world"]["config"]))


def _shows(runs, name, sprite):
    """Whether view ``name`` ever showed ``sprite`` (any facing) in ``runs``."""
    first = 4 * _world().sprite(sprite) + 1
    return any(((run["observations"][name] >= first) & (run["observations"][name] < first + 4)).any() for run in runs)


def test_an_episode_does_not_depend_on_its_neighbours_in_the_batch(played):
    """The same batch with its rows reversed (one compiled program: a row's loops run as long as the
    longest row's, and its branches run when any row takes them) gives every row the same episode."""
    _, obs, rewards, _, keys, table, play = played
    again = play(keys[::-1], table[::-1])
    np.testing.assert_array_equal(np.asarray(again[1])[::-1], rewards)
    for name, value in again[0].items():
        np.testing.assert_array_equal(np.asarray(value)[::-1], obs[name])


WORLD = {"renderOrder": ["top", "base"], "updateOrder": ["tick", {"name": "late", "func": "lateTick"}],
         "hits": {"ray": {"layer": "overlay", "sprite": "Ray"}},
         "states": {"b": {"layer": "base", "sprite": "Bee", "groups": ["g2", "g1"], "contact": "c"},
                    "a": {"layer": "top", "sprite": "Ant", "groups": ["g1"]},
                    "c": {"layer": "aside"}},
         "customSprites": ["Zed"], "outOfBoundsSprite": "Out"}


def test_world_numbers_names_as_lab2d():
    world = world_from_config(WORLD)
    assert world.state_names == ("a", "b", "c")
    assert world.layer_names == ("top", "base", "aside", "overlay") and world.num_render_layers == 2
    assert world.sprite_names == ("Ant", "Bee", "Out", "Ray", "Zed") and world.out_of_bounds_sprite == 2
    assert world.group_names == ("g1", "g2") and world.state_groups == ((0,), (0, 1), ())
    assert world.update_functions == ("tick", "lateTick")
    assert world.state_layer == (0, 1, 2) and world.state_contact == (-1, 0, -1) and world.hit_layer == (3,)
    # an empty Lua table reads as {} in Python: an empty list of names (dmlab2d's shipped levels write them)
    assert world_from_config({**WORLD, "customSprites": {}}).sprite_names == ("Ant", "Bee", "Out", "Ray")


def test_unknown_names_and_bad_worlds_are_refused():
    world = world_from_config(WORLD)
    with pytest.raises(UnknownNameError, match="'a'"):
        world.state("aa")
    with pytest.raises(GridWorldError, match="unknown entries"):
        world_from_config({**WORLD, "stats": {}})
    with pytest.raises(GridWorldError, match="groups"):
        world_from_config({"states": {"x": {"groups": "g"}}})


def test_running_out_of_room_is_reported():
    world = world_from_config(WORLD)
    rules = GridRules(world, width=4, height=1, max_pieces=2, max_queue=1)
    g = empty_grid(rules, jax.random.PRNGKey(0))
    made = []
    for x in range(3):
        g, piece = pieces.create(rules, g, world.state("a"), jnp.asarray([x, 0]), 0)
        made.append(int(piece))
    assert made == [0, 1, -1] and int(g.error) == NO_FREE_SLOT
    g = update.enqueue(g, 0, 0, 1)
    g = update.enqueue(g, 0, 1, 1)
    assert int(g.queue_len) == 1 and int(g.error) == NO_FREE_SLOT | QUEUE_FULL


def test_connections_form_rings_as_lab2d_joins_them():
    """Lab2D's ``ConnectActual`` cases (two lone pieces, a lone piece joining a ring from either side, two
    rings joined, a pair already joined), ``DisconnectActual`` and ``DisconnectAllActual``."""
    world = world_from_config(WORLD)
    rules = GridRules(world, width=6, height=1, max_pieces=6, max_queue=4)
    g = empty_grid(rules, jax.random.PRNGKey(0))
    for x in range(6):
        g, _ = pieces.create(rules, g, world.state("a"), jnp.asarray([x, 0]), 0)

    def ring_of(g, piece):
        members, n = pieces.ring(g, jnp.int32(piece))
        return [int(m) for m in members[:int(n)]]

    g = pieces.connect(g, jnp.int32(0), jnp.int32(1))          # both alone
    g = pieces.connect(g, jnp.int32(2), jnp.int32(1))          # 2 alone: goes in before 1
    g = pieces.connect(g, jnp.int32(0), jnp.int32(3))          # 3 alone: goes in after 0
    assert ring_of(g, 0) == [0, 3, 2, 1]
    g = pieces.connect(g, jnp.int32(4), jnp.int32(5))
    g = pieces.connect(g, jnp.int32(0), jnp.int32(4))          # two rings: 4's ring goes in before 0
    assert ring_of(g, 0) == [0, 3, 2, 1, 5, 4] and sorted(ring_of(g, 4)) == list(range(6))
    before = (np.asarray(g.piece_next), np.asarray(g.piece_prev))
    g = pieces.connect(g, jnp.int32(1), jnp.int32(5))          # already in one ring: nothing changes
    np.testing.assert_array_equal(np.asarray(g.piece_next), before[0])
    g = pieces.disconnect(g, jnp.int32(3))
    assert ring_of(g, 0) == [0, 2, 1, 5, 4] and ring_of(g, 3) == [3]
    g = pieces.disconnect_all(g, jnp.int32(2))
    assert all(ring_of(g, p) == [p] for p in range(6))
    assert (np.asarray(g.piece_prev) == -1).all()
