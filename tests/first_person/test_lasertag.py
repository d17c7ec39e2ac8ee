"""Laser tag: the four DMLab-30 levels, players, shots, shields, pickups, respawns and bots.

Rules checked against ``levels.dmlab.gadgets`` (DMLab's, from its engine); the
line-of-sight property against a host grid walk written here.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.bank import Bank
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.kernels.first_person.frame import frame
from jaxlab.levels.dmlab import actions as A
from jaxlab.levels.dmlab import gadgets as G
from jaxlab.levels.dmlab.dmlab30.lasertag import GENERATORS
from jaxlab.levels.dmlab.level import build_level
from jaxlab.levels.dmlab.map_parser import CELL_WALL, parse_text_map
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX

FPS = 60
ROOM = """
*********
*P     P*
*       *
*P     P*
*********
"""


def room_level(bots: int = 1):
    """An open 7x3 room with four spawn points and ``bots`` bots of skill 4."""
    level = build_level(parse_text_map(ROOM), episode_seconds=240)
    return level.replace(bot_skill=np.full((bots,), 4.0, np.float32), bot_valid=np.ones((bots,), bool))


@functools.lru_cache(maxsize=None)
def room_env(bots: int = 1):
    return FirstPersonEnv(Bank.stack([room_level(bots)]), observations=(), action_repeat=1)


def placed(state, pos, yaw, **arena):
    """``state`` with the players at ``pos`` (P rows of (x, y)) facing ``yaw`` degrees, arena fields replaced."""
    pos = jnp.asarray(pos, jnp.float32)
    yaw = jnp.asarray(yaw, jnp.float32)
    new = state.arena.replace(pos=pos[1:], yaw=yaw[1:], vel=jnp.zeros_like(pos[1:]), **arena)
    return state.replace(pos=pos[0], yaw=yaw[0], vel=jnp.zeros(2, jnp.float32), arena=new)


@jax.jit
def run_frames(level, state, act, n):
    """``n`` (int32[], traced: one compile for every count) frames with every player's action ``act``
    (int32[P, 7]) held; returns the final state and the agent's summed reward."""
    def body(_, carry):
        s, total = carry
        s, r, _ = frame(level, s, act[0], FPS, others_action=act[1:])
        return s, total + r

    return jax.lax.fori_loop(0, n, body, (state, jnp.float32(0.0)))


#: one frame, jitted once for the module
one_frame = jax.jit(frame, static_argnums=3)


def still(p: int):
    return jnp.zeros((p, 7), jnp.int32)


def firing(p: int, who=(0,)):
    return still(p).at[jnp.asarray(who), A.FIRE].set(1)


# -- the four levels --------------------------------------------------------------------------------

def test_maps_follow_dmlab_parameters():
    keys = jax.random.split(jax.random.PRNGKey(2), 64)
    for name, rows, pickups, bots in (("lasertag_one_opponent_small", 11, 3, 1),
                                      ("lasertag_three_opponents_large", 21, 6, 3)):
        levels = jax.jit(jax.vmap(lambda k: GENERATORS[name].episode(k, 0)))(keys)
        assert levels.cells.shape[1:] == (rows, rows)
        assert np.asarray(levels.pickup_valid).sum(1).tolist() == [pickups] * 64
        assert levels.bot_skill.shape == (64, bots) and np.asarray(levels.bot_skill == 4.0).all()
        kinds = np.asarray(levels.pickup_kind)
        weapons = {PICKUP_INDEX[n] for n in G.WEAPON_PICKUPS}
        assert all(sum(k in weapons for k in row) == pickups // 3 for row in kinds)
        cells = np.asarray(levels.cells)
        spawn = np.asarray(levels.spawn_pos)
        rr = (rows - 1 - np.floor(spawn[..., 1] / 100)).astype(int)
        cc = np.floor(spawn[..., 0] / 100).astype(int)
        assert (np.take_along_axis(cells.reshape(64, -1), rr * rows + cc, 1) != CELL_WALL).all()


# -- rules ------------------------------------------------------------------------------------------

def test_shield_decays_from_125_to_100_at_one_a_second():
    env = room_env()
    level = room_level()
    state = placed(env.init_state(jax.random.PRNGKey(0)), [(150, 250), (750, 250)], [0.0, 180.0])
    after_10s, _ = run_frames(level, state, still(2), 10 * FPS)
    after_30s, _ = run_frames(level, after_10s, still(2), 20 * FPS)
    assert np.asarray(after_10s.arena.shield).tolist() == [115.0, 115.0]
    assert np.asarray(after_30s.arena.shield).tolist() == [100.0, 100.0]


@pytest.mark.parametrize("gadget, armour, shield_after, armour_after", [
    (G.RAPID, 0.0, 100.0 - 7.0, 0.0),
    (G.RAPID, 50.0, 100.0 - 2.0, 45.0),      # armour takes ceil(0.66 * 7) = 5
    (G.DISC, 0.0, 0.0, 0.0),
    (G.BEAM, 0.0, 92.0, 0.0),
])
def test_a_hit_takes_the_gadgets_damage(gadget, armour, shield_after, armour_after):
    env = room_env()
    state = placed(env.init_state(jax.random.PRNGKey(0)), [(150, 250), (450, 250)], [0.0, 180.0],
                   shield=jnp.asarray([100.0, 100.0]), armour=jnp.asarray([0.0, armour]),
                   gadget=jnp.asarray([gadget, G.RAPID]), charges=jnp.full((2, G.NUM_GADGETS), 10, jnp.int32))
    after, _, _ = one_frame(room_level(), state, firing(2)[0], FPS, None, None, still(1))
    assert float(after.arena.shield[1]) == shield_after and float(after.arena.armour[1]) == armour_after
    assert bool(after.arena.up[1]) == (shield_after > 0)


def test_a_tag_scores_and_the_tagged_player_comes_back_at_full_shield():
    env = room_env()
    level = room_level()
    state = placed(env.init_state(jax.random.PRNGKey(0)), [(150, 250), (450, 250)], [0.0, 180.0],
                   shield=jnp.asarray([100.0, 5.0]))
    tagged, reward, _ = one_frame(level, state, firing(2)[0], FPS, None, None, still(1))
    assert float(reward) == 1.0 and np.asarray(tagged.arena.score).tolist() == [1, 0]
    assert not bool(tagged.arena.up[1]) and int(tagged.arena.tagged_by[1]) == 0
    waiting, _ = run_frames(level, tagged, still(2), int(G.RESPAWN_DELAY_S * FPS) - 2)
    assert not bool(waiting.arena.up[1])
    back, _ = run_frames(level, waiting, still(2), 3)
    assert bool(back.arena.up[1]) and float(back.arena.shield[1]) == G.SPAWN_SHIELD
    assert int(back.arena.gadget[1]) == G.SPAWN_GADGET


def test_a_tagged_agent_comes_back_on_fire_or_after_the_forced_delay():
    env = room_env()
    level = room_level()
    state = placed(env.init_state(jax.random.PRNGKey(0)), [(450, 250), (150, 250)], [180.0, 0.0],
                   shield=jnp.asarray([5.0, 100.0]))
    tagged, reward, _ = one_frame(level, state, still(1)[0], FPS, None, None, firing(1))
    assert float(reward) == 0.0 and np.asarray(tagged.arena.score).tolist() == [0, 1]
    delay = int(round(G.RESPAWN_DELAY_S * FPS))
    idle, _ = run_frames(level, tagged, still(2), delay + 60)
    assert not bool(idle.arena.up[0])
    pressed, _ = run_frames(level, idle, firing(2, (0,)).at[1, A.FIRE].set(0), 1)
    assert bool(pressed.arena.up[0])
    forced, _ = run_frames(level, tagged, still(2), delay + int(G.FORCED_RESPAWN_S * FPS) + 1)
    assert bool(forced.arena.up[0])


def test_tagging_oneself_with_the_orb_costs_a_point():
    env = room_env()
    state = placed(env.init_state(jax.random.PRNGKey(0)), [(130, 250), (750, 250)], [180.0, 0.0],
                   shield=jnp.asarray([30.0, 100.0]), gadget=jnp.asarray([G.ORB, G.RAPID]),
                   charges=jnp.full((2, G.NUM_GADGETS), 10, jnp.int32))
    after, reward, _ = one_frame(room_level(), state, firing(2)[0], FPS, None, None, still(1))
    assert float(reward) == -1.0 and not bool(after.arena.up[0]) and int(after.arena.tagged_by[0]) == 0


@pytest.mark.parametrize("name, field, before, after", [
    ("orb_gadget", "charges", 0, 10), ("beam_gadget", "charges", 0, 100), ("disc_gadget", "charges", 7, 10),
    ("disc_gadget", "charges", 12, 13), ("shield_boost", "shield", 80.0, 100.0), ("shield_boost", "shield", 30.0, 80.0),
    ("armour", "armour", 0.0, 50.0), ("armour", "armour", 180.0, 200.0),
])
def test_each_pickup_has_its_effect(name, field, before, after):
    row = [n for n, *_ in G.ARENA_PICKUPS].index(name)
    gadget, _, _, seconds = G.ARENA_PICKUPS[row][1:]
    level = room_level().replace(pickup_pos=np.asarray([[450.0, 250.0]], np.float32),
                                 pickup_kind=np.asarray([PICKUP_INDEX[name]], np.int32),
                                 pickup_takeable=np.asarray([False]), pickup_reward=np.zeros(1, np.float32),
                                 pickup_valid=np.asarray([True]), pickup_is_goal=np.asarray([False]))
    env = FirstPersonEnv(Bank.stack([level]), observations=(), action_repeat=1)
    state = env.init_state(jax.random.PRNGKey(0))
    charges = jnp.asarray(G.START_CHARGES)[None].repeat(2, 0)
    g = max(gadget, 0)
    arena = dict(shield=jnp.asarray([100.0, 100.0]), armour=jnp.zeros(2), charges=charges)
    if field == "charges":
        arena["charges"] = charges.at[0, g].set(before)
    else:
        arena[field] = arena[field].at[0].set(before)
    state = placed(state, [(440, 250), (750, 350)], [0.0, 180.0], **arena)
    taken, _, _ = one_frame(level, state, still(1)[0], FPS, None, None, still(1))
    value = taken.arena.charges[0, g] if field == "charges" else getattr(taken.arena, field)[0]
    assert float(value) == after
    assert int(taken.pickup_wait[0]) == round(seconds * FPS) - 0
    if field == "charges":
        assert int(taken.arena.gadget[0]) == g


def test_the_tag_limit_ends_the_episode_as_a_termination():
    env = room_env()
    state = placed(env.init_state(jax.random.PRNGKey(0)), [(150, 250), (450, 250)], [0.0, 180.0],
                   shield=jnp.asarray([100.0, 5.0]), score=jnp.asarray([G.TAG_LIMIT - 1, 0], jnp.int32))
    after, ts = jax.jit(env.step)(state, firing(1)[0])
    assert int(ts.step_type) == 2 and float(ts.discount) == 0.0 and bool(ts.extras["terminated"])
    assert int(after.arena.score[0]) == G.TAG_LIMIT


def test_same_key_same_match_at_any_batch_size():   # frames are a function of the state (tested elsewhere)
    env = jaxlab.make("lasertag_three_opponents_small", observations=("DEBUG.POS.TRANS",), action_repeat=4)
    keys = jax.random.split(jax.random.PRNGKey(5), 4)
    acts = jax.random.randint(jax.random.PRNGKey(6), (12, 4), 0, 9)
    table = jnp.asarray(A.DISCRETE_ACTION_TABLE)

    def play(keys, acts):
        s, _ = jax.vmap(env.reset)(keys)
        s, frames = jax.lax.scan(lambda s, a: (lambda out: (out[0], out[1].observation["DEBUG.POS.TRANS"]))(
            jax.vmap(env.step)(s, table[a])), s, acts)
        return s.arena.pos, s.arena.score, frames

    batched = jax.jit(play)(keys, acts)
    single = jax.jit(play)(keys[2:3], acts[:, 2:3])
    for a, b in zip(batched[:2], single[:2]):
        np.testing.assert_array_equal(np.asarray(a)[2:3], np.asarray(b))
    np.testing.assert_array_equal(np.asarray(batched[2])[:, 2:3], np.asarray(single[2]))


# -- properties over 10,000 random states ------------------------------------------------------------

def _cell(rows, x, y):
    return int(rows - 1 - np.floor(y / 100.0)), int(np.floor(x / 100.0))


def segment_clear(cells, a, b) -> bool:
    """Host grid walk (written here, cell by cell along the segment a -> b, units): no wall cell on the way."""
    rows = cells.shape[0]
    x0, y0 = a[0] / 100.0, a[1] / 100.0
    x1, y1 = b[0] / 100.0, b[1] / 100.0
    cx, cy = int(np.floor(x0)), int(np.floor(y0))
    ex, ey = int(np.floor(x1)), int(np.floor(y1))
    dx, dy = x1 - x0, y1 - y0
    sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
    tx = ((cx + (sx > 0)) - x0) / dx if dx != 0 else np.inf
    ty = ((cy + (sy > 0)) - y0) / dy if dy != 0 else np.inf
    ddx, ddy = (abs(1.0 / dx) if dx != 0 else np.inf), (abs(1.0 / dy) if dy != 0 else np.inf)
    for _ in range(4 * (cells.shape[0] + cells.shape[1])):
        if cells[rows - 1 - cy, cx] == CELL_WALL:
            return False
        if (cx, cy) == (ex, ey):
            return True
        if tx < ty:
            cx, tx = cx + sx, tx + ddx
        else:
            cy, ty = cy + sy, ty + ddy
    return True


@pytest.fixture(scope="module")
def random_frames():
    """10,000 random mid-match states of lasertag_three_opponents_small (players on random floor cells,
    low shields, random gadgets and actions, most pressing FIRE), each run one frame in one batched call."""
    from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy, sample_cells
    from jaxlab.levels.dmlab.map_parser import CELL_FLOOR

    env = FirstPersonEnv(generator=GENERATORS["lasertag_three_opponents_small"], observations=(), action_repeat=1)
    p = 4

    def one(key):
        ks = jax.random.split(key, 8)
        s = env.init_state(ks[0])
        level = s.episode_level
        rc, _ = sample_cells(ks[1], level.cells == CELL_FLOOR, p)
        pos = cell_centre_xy(rc, level.rows) + jax.random.uniform(ks[2], (p, 2), jnp.float32, -30.0, 30.0)
        s = placed(s, pos, jax.random.uniform(ks[3], (p,), jnp.float32, -180.0, 180.0),
                   shield=jax.random.uniform(ks[4], (p,), jnp.float32, 1.0, 40.0),
                   gadget=jax.random.randint(ks[5], (p,), 0, G.NUM_GADGETS),
                   charges=jnp.full((p, G.NUM_GADGETS), 5, jnp.int32))
        act = jnp.stack([jax.random.randint(ks[6], (p,), -20, 21), jnp.zeros((p,), jnp.int32),
                         jax.random.randint(ks[7], (p,), -1, 2), jax.random.randint(ks[6], (p,), -1, 2),
                         jax.random.bernoulli(ks[7], 0.8, (p,)).astype(jnp.int32),
                         jnp.zeros((p,), jnp.int32), jnp.zeros((p,), jnp.int32)], -1)
        after, _, _ = frame(level, s, act[0], FPS, others_action=act[1:])
        return level.cells, after.pos, after.arena

    return jax.jit(jax.vmap(one))(jax.random.split(jax.random.PRNGKey(11), 10_000))


def test_no_player_is_ever_inside_a_wall_or_another_player(random_frames):
    cells, agent_pos, arena = (jax.tree_util.tree_map(np.asarray, x) for x in random_frames)
    pos = np.concatenate([agent_pos[:, None], arena.pos], 1)
    live = arena.playing & arena.up
    rows = cells.shape[1]
    r = 14.99
    for dx in (-r, r):
        for dy in (-r, r):
            rr = np.clip((rows - 1 - np.floor((pos[..., 1] + dy) / 100)).astype(int), 0, rows - 1)
            cc = np.clip(np.floor((pos[..., 0] + dx) / 100).astype(int), 0, rows - 1)
            in_wall = np.take_along_axis(cells.reshape(len(cells), -1), rr * rows + cc, 1) == CELL_WALL
            assert not (in_wall & live).any()
    gap = np.abs(pos[:, :, None] - pos[:, None, :])
    overlap = (gap[..., 0] < 30) & (gap[..., 1] < 30) & live[:, :, None] & live[:, None, :]
    overlap &= ~np.eye(4, dtype=bool)[None]
    assert not overlap.any()


def test_a_tag_happens_only_with_line_of_sight(random_frames):
    cells, agent_pos, arena = (jax.tree_util.tree_map(np.asarray, x) for x in random_frames)
    pos = np.concatenate([agent_pos[:, None], arena.pos], 1)
    tags = 0
    for e, k in zip(*np.nonzero(arena.tagged_by >= 0)):
        i = arena.tagged_by[e, k]
        assert arena.fired[e, i]
        start, stop = arena.shot_from[e, i], arena.shot_to[e, i]
        assert segment_clear(cells[e], start, stop), (e, i, k)
        if i == k:
            continue
        tags += 1
        direct = np.linalg.norm(stop - pos[e, k]) <= 15.0 + 0.05   # float32 rounding over ~1000 units
        blast = (arena.shot_gadget[e, i] == G.ORB) & (np.linalg.norm(stop - pos[e, k]) < G.GADGETS[G.ORB].blast_radius)
        assert direct or (blast and segment_clear(cells[e], stop, pos[e, k])), (e, i, k)
    assert tags > 300, tags   # the check is not vacuous (about 680 tags of another player)


# -- self-play ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("players, name", [(2, "lasertag_one_opponent_small"), (4, "lasertag_three_opponents_large")])
def test_self_play_batches_run_with_a_row_and_keys_per_player(players, name):
    # the other two levels run in test_same_key_same_match_at_any_batch_size and test_dmlab30_suite's mixed batch
    names = [f"{n}.REWARD" for n in range(1, players + 1)] + [f"{players}.DEBUG.POS.TRANS"]
    env = jaxlab.make("contributed/dmlab30/" + name, width=16, height=12, action_repeat=4, players=players,
                      observations=names)
    assert env.action_spec().shape == (players, 7) and sorted(env.observation_spec()) == sorted(names)
    states, _ = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(3), 4))
    bots = GENERATORS[name].spec.bots
    assert states.arena.pos.shape == (4, bots, 2) and states.arena.score.shape == (4, bots + 1)
    assert np.asarray(states.arena.shield == G.SPAWN_SHIELD).all()
    assert np.asarray(states.arena.bot == 0).all()          # every player is a learner
    states, ts = jax.jit(jax.vmap(env.step))(states, jnp.zeros((4, players, 7), jnp.int32))
    assert ts.observation[f"{players}.DEBUG.POS.TRANS"].shape == (4, 3)   # frames: the test below
    with pytest.raises(ValueError, match="players=2 needs a level with at least 1 other"):
        jaxlab.make("nav_maze_static_01", players=2)
    with pytest.raises(ValueError, match="starts with the player"):
        jaxlab.make(name, players=players, observations=("RGB_INTERLEAVED",))


def test_each_learner_is_paid_its_own_tags_and_sees_the_others():
    env = FirstPersonEnv(Bank.stack([room_level(1)]), observations=("1.REWARD", "2.REWARD", "1.RGB_INTERLEAVED",
                                                                    "2.RGB_INTERLEAVED"),
                         width=32, height=24, action_repeat=1, players=2)
    state = placed(env.init_state(jax.random.PRNGKey(0)), [(150, 250), (450, 250)], [0.0, 180.0],
                   shield=jnp.asarray([5.0, 100.0]))
    step = jax.jit(env.step)   # one compile for the three steps
    after, ts = step(state, firing(2, (1,)))
    assert float(ts.reward) == 0.0 and float(ts.observation["1.REWARD"]) == 0.0
    assert float(ts.observation["2.REWARD"]) == 1.0 and np.asarray(after.arena.score).tolist() == [0, 1]
    _, ts = step(state, still(2))
    gone = state.replace(arena=state.arena.replace(up=jnp.asarray([False, True])))
    _, ts_gone = step(gone, still(2))
    seen, unseen = (np.asarray(t.observation["2.RGB_INTERLEAVED"]) for t in (ts, ts_gone))
    changed = np.flatnonzero((seen != unseen).any(axis=(0, 2)))
    assert changed.size and abs(changed.mean() - 16) < 3    # player 1 stands in the middle of player 2's view
    assert not np.array_equal(np.asarray(ts.observation["1.RGB_INTERLEAVED"]), seen)


def test_lab_runs_a_lasertag_level_by_its_dmlab_path():
    lab = jaxlab.Lab("contributed/dmlab30/lasertag_one_opponent_small", ["RGB_INTERLEAVED"],
                     {"width": "16", "height": "12"})
    lab.reset(seed=1)
    lab.step(np.array([20, 0, 0, 1, 1, 0, 0], np.intc), num_steps=4)
    assert lab.observations()["RGB_INTERLEAVED"].shape == (12, 16, 3) and lab.is_running()
