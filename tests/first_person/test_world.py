"""The first-person kernel: movement, collision, pickups, goals, doors, timing."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.levels.dmlab import units as C
from jaxlab.types import StepType

POS = ("DEBUG.POS.TRANS",)
FORWARD = np.array([0, 0, 0, 1, 0, 0, 0], np.int32)
STILL = np.zeros(7, np.int32)

CORRIDOR = """
***********
*P  A  G  *
***********
"""
TWO_APPLES = """
*********
*P A  A *
*********
"""


def make_map(tmp_path, text, name="map.txt", **settings):
    path = tmp_path / name
    path.write_text(text)
    settings.setdefault("observations", POS)
    return jaxlab.make(str(path), **settings)


def facing(state, yaw):
    """The state turned to ``yaw`` degrees (0 = +x, along the corridor)."""
    return state.replace(yaw=jnp.float32(yaw))


def run(env, state, action, steps):
    """Step ``steps`` times with a fixed action: (state, rewards [T], time steps)."""
    step = jax.jit(env.step)
    rewards, tss = [], []
    for _ in range(steps):
        state, ts = step(state, jnp.asarray(action))
        rewards.append(float(ts.reward))
        tss.append(ts)
    return state, np.array(rewards), tss


def test_walking_speed_look_units_and_velocity_observation(tmp_path):
    env = make_map(tmp_path, "*" * 40 + "\n*P" + " " * 37 + "*\n" + "*" * 40,
                   observations=("VEL.TRANS", "VEL.ROT", "DEBUG.POS.ROT"))
    state, _ = env.reset(jax.random.PRNGKey(0))
    state = facing(state, 0.0)
    state, _, tss = run(env, state, FORWARD, 60)
    forward, left, up = np.asarray(tss[-1].observation["VEL.TRANS"])
    assert forward == pytest.approx(C.MAX_SPEED, rel=0.02) and abs(left) < 1e-3 and up == 0
    turn = np.array([20, 0, 0, 0, 0, 0, 0], np.int32)   # positive LOOK_LEFT_RIGHT turns right
    state, _, tss = run(env, state, turn, 1)
    pitch, yaw, roll = np.asarray(tss[-1].observation["DEBUG.POS.ROT"])
    assert yaw == pytest.approx(-20 * C.LOOK_DEGREES_PER_PIXEL, abs=1e-4)
    assert np.asarray(tss[-1].observation["VEL.ROT"])[1] == pytest.approx(-20 * 0.1056 * 60, rel=1e-4)
    down_look = np.array([0, 30, 0, 0, 0, 0, 0], np.int32)  # adds to the pitch: looks down, as in DMLab
    _, _, tss = run(env, state, down_look, 1)
    assert np.asarray(tss[-1].observation["DEBUG.POS.ROT"])[0] == pytest.approx(30 * 0.1056, abs=1e-4)


def test_apple_pays_once_and_goal_pays_ten_and_respawns(tmp_path):
    env = make_map(tmp_path, CORRIDOR)
    state, _ = env.reset(jax.random.PRNGKey(1))
    state = facing(state, 0.0)
    step = jax.jit(env.step)
    rewards, positions, types = [], [], []
    for _ in range(160):
        state, ts = step(state, jnp.asarray(FORWARD))
        rewards.append(float(ts.reward))
        positions.append(np.asarray(ts.observation["DEBUG.POS.TRANS"]))
        types.append(int(ts.step_type))
    rewards = np.array(rewards)
    assert sorted(r for r in rewards if r) == [1.0, 10.0]
    goal_step = int(np.argmax(rewards == 10.0))
    assert goal_step > int(np.argmax(rewards == 1.0))
    # after the goal the player is back at the spawn point and the episode goes on
    np.testing.assert_allclose(positions[goal_step][:2], [150.0, 150.0])
    assert types[goal_step] == StepType.MID


def test_apple_is_not_taken_twice(tmp_path):
    env = make_map(tmp_path, CORRIDOR)
    state, _ = env.reset(jax.random.PRNGKey(2))
    state, r1, _ = run(env, facing(state, 0.0), FORWARD, 80)    # past the apple
    state, r2, _ = run(env, facing(state, 180.0), FORWARD, 80)  # back over its place
    assert r1.sum() == 1.0 and r2.sum() == 0.0


def test_level_without_goal_restarts_when_all_apples_are_taken(tmp_path):
    env = make_map(tmp_path, TWO_APPLES)
    state, _ = env.reset(jax.random.PRNGKey(3))
    state = facing(state, 0.0)
    step = jax.jit(env.step)
    taken = 0
    for _ in range(200):
        state, ts = step(state, jnp.asarray(FORWARD))
        taken += int(ts.reward)
        if taken == 2:
            break
    assert taken == 2
    # the map restarted: both apples are back and the player is on the spawn point
    np.testing.assert_array_equal(np.asarray(state.pickup_wait), 0)
    np.testing.assert_allclose(np.asarray(ts.observation["DEBUG.POS.TRANS"])[:2], [150.0, 150.0])
    _, rewards, _ = run(env, facing(state, 0.0), FORWARD, 70)
    assert rewards.sum() == 1.0   # the first apple pays again


def test_time_limit_truncates_with_discount_one(tmp_path):
    env = make_map(tmp_path, CORRIDOR, fps=60, action_repeat=4, episode_length_seconds=0.5)
    state, ts = env.reset(jax.random.PRNGKey(4))
    assert int(ts.step_type) == StepType.FIRST
    state, _, tss = run(env, state, STILL, 8)
    kinds = [int(t.step_type) for t in tss]
    # 30 frames in 4-frame steps: the 8th step holds frames 29-30 and ends the episode
    assert kinds == [StepType.MID] * 7 + [StepType.LAST]
    assert float(tss[-1].discount) == 1.0
    assert bool(tss[-1].extras["truncated"]) and not bool(tss[-1].extras["terminated"])
    assert int(state.frames) == 30
    # stepping on after LAST changes nothing and pays nothing
    after, _, more = run(env, state, FORWARD, 2)
    assert int(more[-1].step_type) == StepType.LAST and float(more[-1].reward) == 0
    np.testing.assert_array_equal(np.asarray(after.pos), np.asarray(state.pos))


def test_action_repeat_sums_rewards_over_frames(tmp_path):
    one = make_map(tmp_path, CORRIDOR, name="one.txt")
    many = make_map(tmp_path, CORRIDOR, name="many.txt", action_repeat=150)
    key = jax.random.PRNGKey(5)
    s1, _ = one.reset(key)
    end1, rewards, _ = run(one, facing(s1, 0.0), FORWARD, 150)
    s150, _ = many.reset(key)
    end150, reward150, _ = run(many, facing(s150, 0.0), FORWARD, 1)
    assert rewards.sum() == reward150.sum() == 11.0   # apple and goal within one step
    np.testing.assert_allclose(np.asarray(end1.pos), np.asarray(end150.pos), atol=1e-3)


def test_doors_block_until_open_then_let_the_player_through(tmp_path):
    text = "*********\n*P  I   *\n*********\n"
    env = make_map(tmp_path, text)
    state, _ = env.reset(jax.random.PRNGKey(6))
    state = facing(state, 0.0)
    step = jax.jit(env.step)
    xs, opens = [], []
    for _ in range(150):
        state, ts = step(state, jnp.asarray(FORWARD))
        xs.append(float(ts.observation["DEBUG.POS.TRANS"][0]))
        opens.append(float(state.door_open[0]))
    xs = np.array(xs)
    closed = np.array(opens) < 1
    # while the door is not fully open the player's box never overlaps its cell, x in [400, 500)
    inside = (xs + C.PLAYER_RADIUS > 400.0 + 1e-3) & (xs - C.PLAYER_RADIUS < 500.0 - 1e-3)
    assert not (inside & closed).any()
    assert (xs[:np.argmax(~closed)] <= 400.0 - C.PLAYER_RADIUS + 1e-3).all()
    assert closed.any() and xs.max() > 500.0   # it opened and the player went through


def test_jump_arcs_and_crouch_lowers_the_eye(tmp_path):
    env = make_map(tmp_path, CORRIDOR, observations=("DEBUG.POS.TRANS", "VEL.TRANS"))
    state, _ = env.reset(jax.random.PRNGKey(7))
    jump = np.array([0, 0, 0, 0, 0, 1, 0], np.int32)
    state, _, tss = run(env, state, jump, 1)
    state, _, tss = run(env, state, STILL, 60)
    heights = [0.0] + [float(ts.observation["DEBUG.POS.TRANS"][2]) for ts in tss]
    peak = C.JUMP_VELOCITY ** 2 / (2 * C.GRAVITY)
    assert max(heights) == pytest.approx(peak, rel=0.05) and heights[-1] == 0.0
    crouched, _, _ = run(env, state, np.array([0, 0, 0, 0, 0, 0, 1], np.int32), 1)
    from jaxlab.kernels.first_person.observations import camera
    assert float(camera(crouched).eye_z) == C.CROUCH_EYE_HEIGHT < float(camera(state).eye_z)


def test_out_of_range_actions_are_clipped_in_the_kernel(tmp_path):
    env = make_map(tmp_path, CORRIDOR)
    state, _ = env.reset(jax.random.PRNGKey(8))
    big = np.array([0, 0, 0, 5, 0, 0, 0], np.int32)
    a, _, _ = run(env, facing(state, 0.0), big, 20)
    b, _, _ = run(env, facing(state, 0.0), FORWARD, 20)
    np.testing.assert_allclose(np.asarray(a.pos), np.asarray(b.pos))


def test_make_errors_suggest_close_names(tmp_path):
    with pytest.raises(jaxlab.UnknownNameError, match="nav_maze_static_01"):
        jaxlab.make("nav_maze_statc_01")
    with pytest.raises(jaxlab.UnknownNameError, match="RGB_INTERLEAVED"):
        jaxlab.make("nav_maze_static_01", observations=("RGB_INTERLEAVD",))
    with pytest.raises(jaxlab.UnknownNameError, match="width"):
        jaxlab.make("nav_maze_static_01", widht=96)
    with pytest.raises(ValueError, match="width"):
        jaxlab.make("nav_maze_static_01", width=0)
    bad = tmp_path / "bad.txt"
    bad.write_text("*****\n*P Q*\n*****\n")
    with pytest.raises(jaxlab.levels.dmlab.map_parser.MapError, match=r"bad.txt:2:4: unknown map character 'Q'"):
        jaxlab.make(str(bad))
