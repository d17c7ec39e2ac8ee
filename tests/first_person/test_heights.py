"""Levels with heights (``Level.floor_z``): stepping, falling, jumping, what blocks the player and
where an episode starts; the height view under a sky; the top-down map of heights.

Expected values come from the units (STEP_HEIGHT, GRAVITY, JUMP_VELOCITY, PLAYER_RADIUS, the
50-unit height cells) and the camera geometry (focal = width / 2, horizon = H / 2 - focal
tan(pitch), positive pitch looking down as in DMLab, a point at height z and distance t on row horizon + (eye - z) focal / t), never from
earlier runs. The height view samples each column at geometrically spaced distances
(``height_view.RATIO`` apart), so an edge it draws may sit up to a sample spacing away from the
true one: the tolerances below are worked out from RATIO.
"""
from __future__ import annotations

import functools
import hashlib
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.bank import Bank
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.kernels.first_person.observations import camera
from jaxlab.levels.dmlab import actions as A, units as C
from jaxlab.levels.dmlab.heights import HEIGHT_CELL, NO_FLOOR
from jaxlab.levels.dmlab.level import build_level
from jaxlab.levels.dmlab.map_parser import CELL_WALL, parse_text_map
from jaxlab.render import Camera, render_first_person
from jaxlab.render.first_person import height_view, skies
from jaxlab.render.first_person.topdown import FLOOR, WALL, top_down
from jaxlab.render.first_person.topdown_heights import NO_FLOOR_RGB, height_ramp

FPS = C.DEFAULT_FPS
BATCH = 8          # every rollout runs this many episodes at once (one compiled program)
FRAMES = 300       # ... for this many frames

# --- the world: a 12 x 5 cell room with two spawn points ---------------------------------------
MAP = "\n".join(["*" * 14, "*P" + " " * 11 + "*"] + ["*" + " " * 12 + "*"] * 3
                + ["*" + " " * 11 + "P*", "*" * 14])
ROWS, COLS = 7, 14
LANE = 350.0       # the y (units) of the straight walks, along +x from x = 150
#: solid obstacles (x, y, radius) of the "obstacles" level; the first stands in the lane
OBSTACLES = np.array([[600, LANE, 20], [350, 230, 30], [850, 480, 40], [1050, 250, 35],
                      [500, 480, 25], [750, 200, 30], [1150, 450, 30], [250, 440, 20]], np.float32)
FORWARD = np.array([0, 0, 0, 1, 0, 0, 0], np.int32)


def terrain(*steps, start=0.0):
    """float32[2 ROWS, 2 COLS] ground that depends on x only: ``start`` units high, then from each
    step's x (units, a multiple of 50) on, its height."""
    fz = np.full((2 * ROWS, 2 * COLS), start, np.float32)
    x = np.arange(2 * COLS) * HEIGHT_CELL
    for x0, h in steps:
        fz[:, x >= x0] = h
    return fz


def spawn_terrain():
    """Flat ground, but the four height cells under the first spawn (150, 550) at 10, 20, 30 and 40
    units, and those under the second (1250, 150) at 7."""
    fz = terrain()
    fz[2:4, 2:4] = [[10, 20], [30, 40]]
    fz[10:12, 24:26] = 7
    return fz


#: name -> (floor_z, jump_crouch, obstacles)
LEVELS = {
    "flat": (terrain(), True, False),
    "step18": (terrain((400, C.STEP_HEIGHT)), True, False),
    "step20": (terrain((400, 20.0)), True, False),
    "drop20": (terrain((400, 0.0), start=20.0), True, False),
    "drop100": (terrain((400, 50.0), start=150.0), True, False),
    "stairs": (terrain((400, 18), (500, 36), (600, 18), (700, 0)), True, False),
    "gap": (terrain((400, NO_FLOOR), (450, 0.0)), True, False),
    "jump": (terrain(start=30.0), True, False),
    "no_jump": (terrain(start=30.0), False, False),
    "obstacles": (terrain(), True, True),
    "spawn": (spawn_terrain(), True, False),
    "hills": (terrain((300, 10), (400, 25), (550, NO_FLOOR), (600, 40), (900, 15), (1000, 0)), True, True),
}
NAMES = tuple(LEVELS)


def box_ground(fz, x, y):
    """The highest ground under the player's box centred on (x, y): the height cells the box's
    square of side 2 PLAYER_RADIUS (less a hair) touches."""
    r = C.PLAYER_RADIUS - 0.01
    cols = np.arange(math.floor((x - r) / HEIGHT_CELL), math.floor((x + r) / HEIGHT_CELL) + 1)
    ys = np.arange(math.floor((y - r) / HEIGHT_CELL), math.floor((y + r) / HEIGHT_CELL) + 1)
    return float(fz[np.ix_(2 * ROWS - 1 - ys, cols)].max())


def _level(floor_z=None, jump_crouch=True, obstacles=False):
    level = build_level(parse_text_map(MAP), 60.0)
    if floor_z is None:
        return level
    extra = {}
    if obstacles:
        extra = dict(obstacle_pos=OBSTACLES[:, :2].copy(), obstacle_radius=OBSTACLES[:, 2].copy())
    return level.replace(floor_z=floor_z, sky=np.int32(1), jump_crouch=np.bool_(jump_crouch), **extra)


def _trajectory(env, state, actions):
    """Play ``actions`` [T, 7] from ``state``: dict of [T, ...] arrays after each frame."""
    def body(s, a):
        s, _ = env.step(s, a)
        return s, dict(pos=s.pos, z=s.z, vel=s.vel, vz=s.vz, crouch=s.crouch, eye=camera(s).eye_z)
    return jax.lax.scan(body, state, actions)[1]


@functools.lru_cache(maxsize=None)
def world(flat: bool):
    """(env, jitted vmapped init_state, jitted vmapped rollout) of the bank of LEVELS (in NAMES
    order), or of the flat level alone."""
    levels = [_level()] if flat else [_level(*LEVELS[n]) for n in NAMES]
    env = FirstPersonEnv(Bank.stack(levels), width=8, height=8, observations=("DEBUG.POS.TRANS",))
    return env, jax.jit(jax.vmap(env.init_state)), jax.jit(jax.vmap(functools.partial(_trajectory, env)))


def starts(names, keys=None, poses=None, yaws=None, flat=False):
    """Batched start states of levels ``names`` (reset with ``keys``; then moved to ``poses``
    [(x, y)] facing ``yaws`` degrees, with the feet on the ground there, if given)."""
    env, init, _ = world(flat)
    keys = jax.random.split(jax.random.PRNGKey(0), len(names)) if keys is None else keys
    state = init(keys, jnp.asarray([0 if flat else NAMES.index(n) for n in names], jnp.int32))
    if poses is not None:
        z = [box_ground(LEVELS[n][0], *p) for n, p in zip(names, poses)]
        state = state.replace(pos=jnp.asarray(poses, jnp.float32), z=jnp.asarray(z, jnp.float32),
                              yaw=jnp.asarray(yaws, jnp.float32))
    return state


def roll(state, actions, flat=False):
    """numpy trajectories (dict of [B, FRAMES, ...]) of start states ``state`` (batch of BATCH)
    under ``actions`` [B, T <= FRAMES, 7] (padded with no-ops)."""
    actions = np.asarray(actions, np.int32)
    padded = np.zeros((BATCH, FRAMES, 7), np.int32)
    padded[:, :actions.shape[1]] = actions
    return jax.tree_util.tree_map(np.asarray, world(flat)[2](state, jnp.asarray(padded)))


def walks(cases):
    """Walk each case (level name, frames of FORWARD then standing) along the lane from x = 150,
    facing +x: list of per-case numpy trajectories."""
    names = [c[0] for c in cases] + [cases[-1][0]] * (BATCH - len(cases))
    actions = np.zeros((BATCH, FRAMES, 7), np.int32)
    for i, (_, frames) in enumerate(cases):
        actions[i, :frames] = FORWARD
    out = roll(starts(names, poses=[(150.0, LANE)] * BATCH, yaws=[0.0] * BATCH), actions)
    return [{k: v[i] for k, v in out.items()} for i in range(len(cases))]


def random_actions(seed, batch=BATCH, frames=FRAMES, hold=10):
    """int32[batch, frames, 7]: random looks, moves, strafes, jumps and crouches, each held for
    ``hold`` frames."""
    rng = np.random.default_rng(seed)
    n = frames // hold
    a = np.zeros((batch, n, 7), np.int32)
    a[..., A.LOOK_LEFT_RIGHT] = rng.integers(-40, 41, (batch, n))
    a[..., A.STRAFE_LEFT_RIGHT] = rng.integers(-1, 2, (batch, n))
    a[..., A.MOVE_BACK_FORWARD] = rng.choice([-1, 0, 1, 1, 1], (batch, n))
    a[..., A.JUMP] = rng.random((batch, n)) < 0.15
    a[..., A.CROUCH] = rng.random((batch, n)) < 0.15
    return np.repeat(a, hold, axis=1)


def on_ground(traj, fz):
    """bool[T]: the feet are on the ground under the box after each frame."""
    return np.array([z == box_ground(fz, x, y) for (x, y), z in zip(traj["pos"], traj["z"])])


def fall_frames(traj, fz):
    """(frames from the first frame off the ground to the landing frame, both counted; the landing
    frame's index)."""
    air = ~on_ground(traj, fz)
    first = int(np.argmax(air))
    land = first + int(np.argmax(~air[first:]))
    return land - first + 1, land


# --- physics ------------------------------------------------------------------------------------

def test_a_rise_of_step_height_is_climbed_and_a_higher_one_blocks():
    up, wall = walks([("step18", 150), ("step20", 150)])
    assert up["z"][-1] == C.STEP_HEIGHT and up["pos"][-1, 0] > 500.0        # climbed, walked on
    assert set(np.unique(up["z"])) == {0.0, C.STEP_HEIGHT} and (up["vz"] == 0).all()
    assert (wall["z"] == 0.0).all()                                          # never rose
    edge = 400.0 - C.PLAYER_RADIUS
    assert wall["pos"][:, 0].max() <= edge and wall["pos"][-1, 0] > edge - 0.1   # stopped at the edge
    assert wall["vel"][-1, 0] == 0.0


def test_stepping_up_and_down_stairs_keeps_the_feet_on_the_ground():
    (stairs,) = walks([("stairs", 200)])
    fz = LEVELS["stairs"][0]
    assert on_ground(stairs, fz).all() and (stairs["vz"] == 0).all()        # no frame in the air
    assert stairs["z"].max() == 36.0 and stairs["z"][-1] == 0.0 and stairs["pos"][-1, 0] > 750.0


@pytest.mark.parametrize("name,high,low", [("drop20", 20.0, 0.0), ("drop100", 150.0, 50.0)])
def test_walking_off_a_ledge_falls_under_gravity_and_lands(name, high, low):
    (traj,) = walks([(name, 150)])
    fz = LEVELS[name][0]
    frames, land = fall_frames(traj, fz)
    expected = math.sqrt(2.0 * (high - low) / C.GRAVITY) * FPS      # 13.4 frames for 20, 30 for 100
    assert abs(frames - expected) <= 2.0, (frames, expected)
    assert traj["z"][land] == low and traj["vz"][land] == 0.0
    assert (traj["z"][land:] == low).all() and traj["z"].max() == high
    air = slice(land - frames + 1, land)
    assert (np.diff(traj["vz"][air]) < 0).all()                      # speeding up downwards


def test_jump_rises_to_its_apex_and_returns_where_jump_and_crouch_act():
    jump = np.zeros((BATCH, 90, 7), np.int32)
    jump[:, 0, A.JUMP] = 1
    crouch_walk = np.zeros((BATCH, 120, 7), np.int32)   # 2 s: short of the far wall
    crouch_walk[..., A.MOVE_BACK_FORWARD] = 1
    crouch_walk[..., A.CROUCH] = 1
    names = ["jump", "no_jump"] * 4
    state = starts(names, poses=[(150.0, LANE)] * BATCH, yaws=[0.0] * BATCH)
    hop = roll(state, jump)
    apex = C.JUMP_VELOCITY ** 2 / (2 * C.GRAVITY)                    # 45.6 units
    assert hop["z"][0].max() - 30.0 == pytest.approx(apex, abs=2.0)
    land = int(np.argmax(hop["z"][0] == 30.0))
    assert land / FPS == pytest.approx(2 * C.JUMP_VELOCITY / C.GRAVITY, abs=2 / FPS)
    assert (hop["z"][0, land:] == 30.0).all() and hop["vz"][0, -1] == 0.0
    assert (hop["z"][1] == 30.0).all() and (hop["vz"][1] == 0.0).all()   # JUMP does nothing
    walk = roll(state, crouch_walk)
    speed = np.linalg.norm(walk["vel"][:, 119], axis=-1)
    # jump_crouch: crouched (slow, eye lowered, on the ground); without: standing at full speed
    assert speed[0] == pytest.approx(C.MAX_SPEED * C.CROUCH_SPEED_SCALE, rel=0.05)
    np.testing.assert_array_equal(walk["eye"][0, :120], walk["z"][0, :120] + C.CROUCH_EYE_HEIGHT)
    assert (walk["z"][0] == 30.0).all()
    assert speed[1] == pytest.approx(C.MAX_SPEED, rel=0.02)
    assert (walk["eye"][1] == 30.0 + C.EYE_HEIGHT).all() and (walk["z"][1] == 30.0).all()


def test_no_floor_and_obstacles_block_like_walls():
    gap, post = walks([("gap", 150), ("obstacles", 150)])
    assert gap["pos"][:, 0].max() <= 400.0 - C.PLAYER_RADIUS and gap["pos"][-1, 0] > 384.9
    assert (gap["z"] == 0.0).all()
    reach = OBSTACLES[0, 2] + C.PLAYER_RADIUS
    assert post["pos"][:, 0].max() <= OBSTACLES[0, 0] - reach
    assert post["pos"][-1, 0] > OBSTACLES[0, 0] - reach - 2.0              # pressed up against it


def test_random_walks_never_enter_an_obstacle():
    rng = np.random.default_rng(3)
    poses = []
    while len(poses) < BATCH:   # free start points in the room
        p = rng.uniform([120, 120], [1280, 580])
        if (np.hypot(*(OBSTACLES[:, :2] - p).T) > OBSTACLES[:, 2] + C.PLAYER_RADIUS + 1).all():
            poses.append(p)
    state = starts(["obstacles"] * BATCH, poses=poses, yaws=rng.uniform(-180, 180, BATCH))
    traj = roll(state, random_actions(4))
    gap = np.hypot(*(traj["pos"][:, :, None, :] - OBSTACLES[:, :2]).transpose(3, 0, 1, 2)) \
        - (OBSTACLES[:, 2] + C.PLAYER_RADIUS)                           # [B, T, O]
    assert gap.min() >= -1e-3
    assert gap.min() < 3.0                      # the walks really ran into obstacles
    assert np.ptp(traj["pos"][..., 0], axis=1).min() > 20.0


def test_heights_at_zero_move_exactly_as_a_flat_level():
    keys = jax.random.split(jax.random.PRNGKey(5), BATCH)
    actions = random_actions(6)
    hills = roll(starts(["flat"] * BATCH, keys), actions)
    flat = roll(starts(["flat"] * BATCH, keys, flat=True), actions, flat=True)
    for k in hills:
        np.testing.assert_array_equal(hills[k], flat[k], err_msg=k)
    assert hills["z"].max() > 40.0 and np.ptp(hills["pos"][..., 0]) > 300.0   # jumped, walked far


def test_an_episode_starts_with_the_feet_on_the_ground_under_the_spawn():
    state = starts(["spawn"] * BATCH, jax.random.split(jax.random.PRNGKey(7), BATCH))
    pos, z = np.asarray(state.pos), np.asarray(state.z)
    expected = [box_ground(LEVELS["spawn"][0], *p) for p in pos]
    np.testing.assert_array_equal(z, expected)
    assert set(np.round(pos[:, 0])) == {150.0, 1250.0} and set(z) == {40.0, 7.0}


def test_same_key_same_trajectory_at_any_batch_size_jitted_or_not():
    env = world(False)[0]
    keys = jax.random.split(jax.random.PRNGKey(8), BATCH)
    actions = random_actions(9)
    actions[:, :3] = [0, 0, 0, 1, 0, 1, 0]          # forward and jump at once
    state = starts(["hills"] * BATCH, keys)
    big = roll(state, actions)
    one = jax.jit(jax.vmap(functools.partial(_trajectory, env)))
    for i in (0, 5):
        small = one(jax.tree_util.tree_map(lambda x: x[i:i + 1], state), jnp.asarray(actions[i:i + 1]))
        for k in big:
            np.testing.assert_array_equal(big[k][i], np.asarray(small[k])[0], err_msg=k)
    s = jax.tree_util.tree_map(lambda x: x[0], state)
    for t in range(3):   # op by op
        s, _ = env.step(s, jnp.asarray(actions[0, t]))
        np.testing.assert_allclose(np.asarray(s.pos), big["pos"][0, t], atol=1e-4)
        np.testing.assert_allclose(float(s.z), big["z"][0, t], atol=1e-4)
    assert not np.array_equal(big["pos"][0], big["pos"][1])


# --- the height view ----------------------------------------------------------------------------
W, H = 64, 48
FOCAL, HORIZON = W / 2.0, H / 2.0
SPREAD = math.sqrt(height_view.RATIO)   # an edge drawn at a sample's end: within this factor of true
RMAP = "\n".join(["*" * 20, "*P" + " " * 17 + "*"] + ["*" + " " * 18 + "*"] * 6
                 + ["*" + " " * 17 + "G*", "*" * 20])
RROWS, RCOLS = 10, 20
EYE_X, EYE_Y = 300.0, 500.0             # the camera of most views, looking along +x
CENTRE = slice(W // 2 - 2, W // 2 + 2)  # the middle columns


def ground(value=0.0):
    """float32[2 RROWS, 2 RCOLS] height cells all at ``value``."""
    return np.full((2 * RROWS, 2 * RCOLS), value, np.float32)


def block(fz, x0, x1, y0, y1, h):
    """``fz`` with the height cells of x in [x0, x1), y in [y0, y1) (units, multiples of 50) at h."""
    fz = fz.copy()
    fz[2 * RROWS - int(y1 // HEIGHT_CELL):2 * RROWS - int(y0 // HEIGHT_CELL),
       int(x0 // HEIGHT_CELL):int(x1 // HEIGHT_CELL)] = h
    return fz


@functools.lru_cache(maxsize=None)
def render_base():
    return build_level(parse_text_map(RMAP), 60.0)


def rlevel(floor_z=None, sky=1, scale=1.0):
    level = render_base()
    if floor_z is None:
        return level
    return level.replace(floor_z=floor_z, sky=np.int32(sky), pickup_scale=np.full(1, scale, np.float32))


def cam(eye, x=EYE_X, y=EYE_Y, yaw=0.0, pitch=0.0):
    f = jnp.float32
    return Camera(pos=jnp.array([x, y], f), eye_z=f(eye), yaw=f(yaw), pitch=f(pitch))


@functools.lru_cache(maxsize=None)
def renderer(flat_too=False, batched=False):
    def fn(level, camera, pickup_pos, present):
        return render_first_person(level, camera, jnp.zeros(level.door_valid.shape, bool), pickup_pos,
                                   present, width=W, height=H, with_depth=True, flat_too=flat_too)
    return jax.jit(jax.vmap(fn) if batched else fn)


def view(level, camera, pickup_xy=(0.0, 0.0), present=False, flat_too=False):
    """uint8[H, W, 4] RGBD frame of ``level`` from ``camera``, its one pickup at ``pickup_xy``."""
    pos = jnp.asarray([pickup_xy], jnp.float32)
    return np.asarray(renderer(flat_too)(level, camera, pos, jnp.asarray([present])))


def sky_only(sky):
    return view(rlevel(ground(NO_FLOOR), sky), cam(26.0))


def row_of(z, t, eye, horizon=HORIZON):
    """The image row (continuous) of a point at height z, distance t along the view axis."""
    return horizon + (eye - z) * FOCAL / t


def first_pixel(row):
    """The first pixel row whose centre lies at or below the continuous row ``row``."""
    return math.ceil(row - 0.5)


def sample_edge(t, far_edge):
    """The distance at which the height view draws an edge at distance ``t`` along the view axis:
    the far end of the last sample whose middle lies before it (``far_edge``: ground below the eye
    that ends there), or the near end of the first sample whose middle lies past it (a face rising
    above the eye that begins there)."""
    mid = np.sqrt(height_view.SAMPLE_FAR * height_view.SAMPLE_NEAR)
    if far_edge:
        return float(height_view.SAMPLE_FAR[np.flatnonzero(mid < t)[-1]])
    return float(height_view.SAMPLE_NEAR[np.argmax(mid >= t)])


def first_ground_row(frame, cols=CENTRE):
    """Per column in ``cols``: the first row whose depth is not the sky's (255)."""
    return np.argmax(frame[:, cols, 3] < 255, axis=0)


@pytest.mark.parametrize("sky", [1, 2, 3, 4])
def test_rows_above_the_horizon_are_sky_whatever_the_ground_below_the_eye(sky):
    bare = sky_only(sky)
    top = bare[:int(HORIZON)]
    rng = np.random.default_rng(sky)
    hills = rng.uniform(0.0, 150.0, (2 * RROWS, 2 * RCOLS)).astype(np.float32)
    hills[rng.random(hills.shape) < 0.2] = NO_FLOOR
    for fz in (ground(0.0), hills):
        frame = view(rlevel(fz, sky), cam(200.0))
        np.testing.assert_array_equal(frame[:int(HORIZON)], top)
        assert (frame[int(HORIZON) + 1:, :, 3] < 255).any()                # ground drawn below
    np.testing.assert_array_equal(bare[0, :, :3], np.broadcast_to(skies.ZENITH_RGB[sky].astype(np.uint8), (W, 3)))
    # nothing to stand on anywhere: every row one colour, the far ground's below the horizon
    assert (bare == bare[:, :1]).all() and (bare[..., 3] == 255).all()
    below = (skies.BELOW_RGB[sky] * skies.LIGHT_RGB[sky]).astype(np.uint8)
    np.testing.assert_array_equal(bare[int(HORIZON):, 0, :3], np.broadcast_to(below, (H - int(HORIZON), 3)))
    assert not (bare[:int(HORIZON), 0, :3] == below).all(-1).any()


@pytest.mark.parametrize("pitch", [-20.0, 25.0])
def test_the_horizon_moves_with_the_pitch(pitch):
    frame = view(rlevel(ground(NO_FLOOR), 2), cam(26.0, pitch=pitch))
    below = (skies.BELOW_RGB[2] * skies.LIGHT_RGB[2]).astype(np.uint8)
    horizon = HORIZON - FOCAL * math.tan(math.radians(pitch))   # positive pitch looks down
    is_below = (frame[:, 0, :3] == below).all(-1)
    assert (is_below == (np.arange(H) + 0.5 > horizon)).all()


def test_flat_ground_begins_at_its_far_edge_and_fills_the_rows_below():
    g, eye, edge = 40.0, 330.0, 1500.0
    fz = block(ground(NO_FLOOR), 0, edge, 0, RROWS * 100, g)
    frame = view(rlevel(fz, 2), cam(eye))
    d = edge - EYE_X                                                  # 1200 units ahead, every column
    lo, hi = row_of(g, d * SPREAD, eye), row_of(g, d / SPREAD, eye)   # the far edge's rows, 30.8 .. 32.8
    first = first_ground_row(frame, slice(None))
    assert (first >= math.floor(lo - 0.5)).all() and (first <= math.ceil(hi + 0.5)).all(), (lo, hi, first)
    assert (first == first_pixel(row_of(g, sample_edge(d, far_edge=True), eye))).all()
    rows = np.arange(H)[:, None]
    assert ((frame[..., 3] < 255) == (rows >= first[None, :])).all()  # ground from there down
    colour = np.asarray(height_view.ground_colours(rlevel(fz, 2), jnp.int32(0), jnp.int32(0)))
    low = frame[-8:, :, :3].reshape(-1, 3).astype(np.float64)
    cosine = low @ colour / np.linalg.norm(low, axis=1) / np.linalg.norm(colour)
    assert cosine.min() > 0.995                                       # sand, shaded
    # the depth of the bottom row: the ground's distance there, within a sample's spread
    t = (eye - g) * FOCAL / (H - 0.5 - HORIZON)
    assert t / SPREAD - 8 <= frame[-1, :, 3].astype(float).min() * height_view.DEPTH_UNITS
    assert frame[-1, :, 3].astype(float).max() * height_view.DEPTH_UNITS <= t * SPREAD + 8
    assert (np.diff(frame[int(HORIZON) + 8:, W // 2, 3].astype(int)) <= 0).all()   # nearer lower down


def test_a_raised_block_shows_its_front_face_at_its_distance_and_hides_the_sky():
    eye, h, d = 26.0, 126.0, 300.0
    fz = block(ground(0.0), EYE_X + d, EYE_X + d + 200, EYE_Y - 100, EYE_Y + 100, h)
    lo, hi = row_of(h, d / SPREAD, eye), row_of(h, d * SPREAD, eye)   # 11.9 .. 14.6 (13.3 exactly)
    for sky in (2, 1):   # solid terrain; skymaze's floating slabs
        frame = view(rlevel(fz, sky), cam(eye))
        top = first_ground_row(frame)
        assert (top >= math.floor(lo - 0.5)).all() and (top <= math.ceil(hi + 0.5)).all(), (sky, lo, hi, top)
        assert (top == first_pixel(row_of(h, sample_edge(d, far_edge=False), eye))).all()
    # desert: the block's face reaches down to the ground, hiding the sky behind it
    frame = view(rlevel(fz, 2), cam(eye))
    open_sky = view(rlevel(ground(0.0), 2), cam(eye))
    face = frame[top.max():int(HORIZON), CENTRE]
    assert (face[..., 3] < 255).all() and (open_sky[top.max():int(HORIZON), CENTRE, 3] == 255).all()
    depth = face[..., 3].astype(float) * height_view.DEPTH_UNITS   # the first sample in the block
    assert (d - 8 <= depth).all() and (depth <= d * height_view.RATIO + 8).all()
    assert not (face[..., :3] == open_sky[top.max():int(HORIZON), CENTRE, :3]).all(-1).any()
    assert (frame[top.max():int(HORIZON), :8, 3] == 255).all()   # beside it (21 columns wide): sky
    # skymaze: a slab PLATFORM_THICKNESS deep, above the eye, with sky under it down to the horizon
    slab = view(rlevel(fz, 1), cam(eye))
    base = h - skies.PLATFORM_THICKNESS
    front = first_pixel(row_of(base, d / SPREAD, eye))                 # its front's bottom: row 17 or lower
    under = first_pixel(row_of(base, (d + 200) * SPREAD, eye) + 1.0)   # its far end's bottom: above row 22
    assert front - top.max() >= 3 and int(HORIZON) - under >= 2
    assert (slab[top.max():front, CENTRE, 3] < 255).all()
    assert (slab[under:int(HORIZON), CENTRE, 3] == 255).all()


def test_day_dawn_and_night_light_the_same_terrain_differently():
    x = np.arange(2 * RCOLS) * HEIGHT_CELL
    y = np.arange(2 * RROWS)[:, None] * HEIGHT_CELL
    hills = (60.0 + 40.0 * np.sin(x / 230.0) * np.cos(y / 170.0)).astype(np.float32)
    frames = {sky: view(rlevel(hills, sky), cam(130.0, pitch=-10.0))[..., :3] for sky in (2, 3, 4)}
    for a, b in ((2, 3), (2, 4), (3, 4)):
        assert not np.array_equal(frames[a], frames[b])
    mean = {sky: f.mean() for sky, f in frames.items()}
    assert mean[4] < 0.6 * min(mean[2], mean[3])


def sprite_mask(fz, xy, scale=1.0, eye=100.0):
    """bool[H, W]: where the goal pickup at ``xy`` changes the frame."""
    level = rlevel(fz, 2, scale)
    with_it = view(level, cam(eye), xy, True)
    without = view(level, cam(eye), xy, False)
    return (with_it[..., :3] != without[..., :3]).any(-1)


def test_a_pickup_stands_on_the_ground_under_it_and_scales():
    d, h = 150.0, 40.0
    xy = (EYE_X + d, EYE_Y)
    low = sprite_mask(ground(0.0), xy)
    plateau = block(ground(0.0), EYE_X + 100, EYE_X + 300, EYE_Y - 100, EYE_Y + 100, h)
    high = sprite_mask(plateau, xy)
    big = sprite_mask(plateau, xy, scale=2.0)
    rows = np.arange(H)[:, None]

    def centre_row(mask):
        return (rows * mask).sum() / mask.sum()
    assert low.sum() > 20 and high.sum() > 20
    assert centre_row(low) - centre_row(high) == pytest.approx(h * FOCAL / d, abs=1.0)   # 8.5 rows up
    assert 3.0 < big.sum() / high.sum() < 5.0                          # twice as wide and tall
    tall = [np.ptp(np.flatnonzero(m.any(1))) + 1 for m in (high, big)]
    assert tall[1] == pytest.approx(2 * tall[0], abs=2)


def test_vmap_of_the_height_view_equals_each_view():
    x = np.arange(2 * RCOLS) * HEIGHT_CELL
    hills = np.broadcast_to((30.0 * np.sin(x / 150.0) + 30.0).astype(np.float32), (2 * RROWS, 2 * RCOLS))
    skies_ = (1, 2, 3, 4)
    levels = [rlevel(np.ascontiguousarray(hills), sky, 1.0 + 0.5 * sky) for sky in skies_]
    cams = [cam(80.0 + 10 * sky, yaw=40.0 * sky, pitch=-5.0 * sky) for sky in skies_]
    xy = jnp.asarray([[EYE_X + 120.0, EYE_Y]], jnp.float32)
    present = jnp.asarray([True])

    def stack(items):
        return jax.tree_util.tree_map(lambda *a: jnp.stack(a), *items)
    batch = np.asarray(renderer(batched=True)(stack(levels), stack(cams), stack([xy] * 4), stack([present] * 4)))
    for i, (level, eye) in enumerate(zip(levels, cams)):
        np.testing.assert_array_equal(batch[i], view(level, eye, (EYE_X + 120.0, EYE_Y), True))
    assert not np.array_equal(batch[0], batch[1])


@pytest.mark.parametrize("pose", [(150.0, 850.0, -30.0, 0.0), (1200.0, 400.0, 135.0, 10.0)])
def test_flat_too_draws_a_flat_level_exactly_as_the_flat_renderer(pose):
    x, y, yaw, pitch = pose
    camera = cam(26.0, x, y, yaw, pitch)
    goal = tuple(np.asarray(render_base().pickup_pos[0]))
    flat = view(render_base(), camera, goal, True)
    mixed = view(rlevel(ground(0.0), 0), camera, goal, True, flat_too=True)
    np.testing.assert_array_equal(mixed, flat)
    hills = view(rlevel(ground(0.0), 1), camera, goal, True, flat_too=True)
    np.testing.assert_array_equal(hills, view(rlevel(ground(0.0), 1), camera, goal, True))
    assert not np.array_equal(hills, flat)


# --- the top-down map of heights ----------------------------------------------------------------
PX = 8                                   # pixels per map cell: 4 per height cell
#: heights rising west to east, a gap, and -30 under the west wall (not ground: out of the range)
TERRACES = terrain((100, 0), (200, 5), (300, 13), (400, 27), (500, 44), (600, NO_FLOOR), (700, 60),
                   (900, 90), (1100, 95), start=-30.0)
FLAT_MAP = "*********\n*P  I  G*\n* A *** *\n*** ***H*\n*A    P *\n*********"
FLAT_VARIATIONS = ".........\n.........\n....AB...\n..CC.....\n.........\n........."
#: sha256 of top_down of FLAT_MAP, drawn before levels with heights were drawn from above
FLAT_DRAWINGS = {12: "633e20a8ca917d09", 7: "2e3354e11788630a"}


def terraces_top_down():
    return top_down(_level(TERRACES), cell_px=PX), top_down(_level(), cell_px=PX)


def luminance(rgb):
    return np.asarray(rgb, np.float64) @ [0.299, 0.587, 0.114]


def test_top_down_colours_the_ground_by_height():
    img, flat = terraces_top_down()
    assert img.shape == flat.shape == (ROWS * PX, COLS * PX, 3) and img.dtype == np.uint8
    py = 3 * PX + 1                                                  # a row inside the room
    x = np.arange(2 * COLS) * HEIGHT_CELL
    ground = (TERRACES[0] > NO_FLOOR) & (x >= 100) & (x < 1300)
    z = TERRACES[0][ground]
    centre = img[py, np.flatnonzero(ground) * 4 + 1].astype(np.float64)   # away from contour lines
    lum = luminance(centre)
    order = np.argsort(z, kind="stable")
    assert (np.diff(lum[order])[np.diff(z[order]) > 0] > 0).all()    # higher ground, brighter
    assert (np.diff(lum[order])[np.diff(z[order]) == 0] == 0).all()
    np.testing.assert_array_equal(centre[z == 0.0][0], height_ramp(0.0).round())   # the lowest ground
    np.testing.assert_array_equal(centre[z == 95.0][0], height_ramp(1.0).round())  # the highest
    t = np.linspace(0.0, 1.0, 101)
    assert (np.diff(luminance(height_ramp(t))) > 0).all()
    gap = img[PX:(ROWS - 1) * PX, 12 * 4:13 * 4]                     # x in [600, 650): NO_FLOOR
    assert (gap == NO_FLOOR_RGB).all()


def test_top_down_draws_contours_where_the_height_crosses_twenty_units():
    img, _ = terraces_top_down()
    py = 3 * PX + 1
    row = img[py].astype(np.float64)
    # 13 | 27 (crosses 20) at x = 400: the last pixel west of the border is darkened
    assert luminance(row[8 * 4 - 1]) == pytest.approx(0.6 * luminance(row[8 * 4 - 2]), abs=1.5)
    # 0 | 5 at x = 200 and 90 | 95 at x = 1100 cross nothing: no line
    for border in (4 * 4, 22 * 4):
        np.testing.assert_array_equal(row[border - 1], row[border - 2])
    # contours run along the border on every row of the room
    room = img[PX:(ROWS - 1) * PX, 8 * 4 - 1].astype(np.float64)
    assert (luminance(room) < luminance(img[PX:(ROWS - 1) * PX, 8 * 4 - 2])).all()


def test_top_down_of_heights_keeps_walls_spawns_and_pickups():
    img, flat = terraces_top_down()
    walls = np.repeat(np.repeat(np.asarray(_level().cells) == CELL_WALL, PX, 0), PX, 1)
    np.testing.assert_array_equal(img[walls], flat[walls])
    marks = ~walls & (flat != FLOOR).any(-1)                         # spawn rings drawn over the floor
    assert marks.sum() > 20
    np.testing.assert_array_equal(img[marks], flat[marks])
    goal = top_down(rlevel(ground(30.0), 2), cell_px=PX)
    gx, gy = np.asarray(render_base().pickup_pos[0])
    col, row = int(gx / 100 * PX), int((RROWS * 100 - gy) / 100 * PX)
    np.testing.assert_array_equal(goal[row, col], np.asarray(top_down(render_base(), cell_px=PX))[row, col])
    assert (goal[row, col] != height_ramp(0.0).round()).any()


def test_top_down_of_a_flat_level_is_unchanged():
    level = build_level(parse_text_map(FLAT_MAP, FLAT_VARIATIONS), 30.0)
    trajectory = np.array([[150, 450], [300, 450], [420, 330], [650, 170]], float)
    drawings = {12: top_down(level, cell_px=12),
                7: top_down(level, cell_px=7, trajectory=trajectory, door_lock=np.array([2, -1]))}
    for px, img in drawings.items():
        assert hashlib.sha256(img.tobytes()).hexdigest()[:16] == FLAT_DRAWINGS[px]
    assert (drawings[12][12:24, 24:36] == FLOOR).all() and (drawings[12][:12, :12] == WALL.astype(np.uint8)).all()
