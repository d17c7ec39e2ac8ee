"""Tests of the first-person renderer (jaxlab.render).

Expected values come from the camera geometry (90-degree field of view,
focal = width / 2, walls 100 high), never from earlier renders.
"""
from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.bank import Bank
from jaxlab.levels.dmlab.level import build_level
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX, PICKUP_TYPES
from jaxlab.levels.dmlab.map_parser import CELL_WALL, parse_text_map
from jaxlab.render import Camera, render_first_person
from jaxlab.render.first_person.textures import STYLE_TABLE

EYE = 26.0
W, H = 160, 120            # geometry tests
FOCAL = W / 2.0


_MAPS = {}  # (text, variations) -> index in the shared bank; filled at import


def register(text, variations=None):
    """Declare a test map at import time; returns its text for use in tests."""
    _MAPS.setdefault((text, variations), len(_MAPS))
    return text


@functools.lru_cache(maxsize=None)
def _bank():
    # Every test level padded to one shape, so the renderer compiles once per image size.
    levels = [build_level(parse_text_map(t, v), episode_seconds=60) for t, v in _MAPS]
    return Bank.stack(levels)


def make_level(text, variations=None):
    return _bank().get(_MAPS[(text, variations)])


def cam(x, y, yaw=0.0, pitch=0.0, eye_z=EYE):
    f = jnp.float32
    return Camera(pos=jnp.array([x, y], f), eye_z=f(eye_z), yaw=f(yaw), pitch=f(pitch))


@functools.lru_cache(maxsize=None)
def _renderer(width, height, with_depth):
    def fn(level, camera, door_closed, pickup_pos, pickup_present):
        return render_first_person(level, camera, door_closed, pickup_pos, pickup_present,
                                   width=width, height=height, with_depth=with_depth)
    return jax.jit(fn)


@pytest.fixture(scope="module")
def render():
    """render(level, camera, width=, height=, depth=, doors=None, present=None) -> np.uint8 frame."""
    def run(level, camera, width=W, height=H, depth=True, doors=None, present=None):
        if doors is None:
            doors = level.door_valid
        else:  # pad to the bank's door count
            doors = jnp.zeros_like(level.door_valid).at[: len(doors)].set(jnp.asarray(doors))
        present = level.pickup_valid if present is None else jnp.asarray(present)
        out = _renderer(width, height, depth)(level, camera, doors, level.pickup_pos, present)
        return np.asarray(out)
    return run


# A long east-west corridor whose walls use the vivid theme 'Q'.
CORRIDOR = register("""
************
*P         *
************
""")
CORRIDOR_VAR = """
QQQQQQQQQQQQ
QQQQQQQQQQQQ
QQQQQQQQQQQQ
"""
register(CORRIDOR, CORRIDOR_VAR)
END_X = 1100.0             # x of the corridor's east end wall
MID_Y = 150.0              # y of the corridor's centre line


def chroma(px):
    px = px[..., :3].astype(int)
    return px.max(-1) - px.min(-1)


def wall_rows(frame, col):
    """Rows of column ``col`` showing the vivid 'Q' wall (floor and ceiling are greyish)."""
    assert STYLE_TABLE[17, :3].max() - STYLE_TABLE[17, :3].min() > 120  # 'Q' is vivid
    return np.nonzero(chroma(frame[:, col]) > 40)[0]


def expected_wall_rows(d, pitch=0.0, height=H, focal=FOCAL, eye=EYE):
    """First and last image row whose centre lies on a 100-high wall d units ahead."""
    horizon = height / 2 - focal * math.tan(math.radians(pitch))   # positive pitch looks down (DMLab's)
    top = horizon - focal * (100 - eye) / d
    bottom = horizon + focal * eye / d
    return math.ceil(top - 0.5), math.ceil(bottom - 0.5) - 1


@pytest.fixture(scope="module")
def corridor():
    return make_level(CORRIDOR, CORRIDOR_VAR)


@pytest.mark.parametrize("d", [230.0, 410.0, 777.0])
def test_facing_wall_fills_expected_rows(render, corridor, d):
    frame = render(corridor, cam(END_X - d, MID_Y))
    for col in (W // 2 - 1, W // 2):
        rows = wall_rows(frame, col)
        first, last = expected_wall_rows(d)
        assert abs(rows.min() - first) <= 1 and abs(rows.max() - last) <= 1, (rows.min(), rows.max(), first, last)
        assert len(rows) == rows.max() - rows.min() + 1  # one contiguous span


def test_depth_grows_with_distance_and_matches(render, corridor):
    depths = []
    for d in (200.0, 500.0, 900.0):
        frame = render(corridor, cam(END_X - d, MID_Y))
        centre = frame[H // 2, W // 2, 3]
        assert abs(int(centre) - d / 16.0) <= 1.0, (centre, d / 16.0)
        depths.append(int(centre))
    assert depths[0] < depths[1] < depths[2]


def test_depth_channel_floor_and_ceiling(render, corridor):
    """Floor pixels: distance f*eye/(rows below the horizon) / 16; ceiling likewise."""
    frame = render(corridor, cam(END_X - 900.0, MID_Y))
    for row in (H - 1, H - 10, 0, 8):
        up = H / 2 - (row + 0.5)
        height = (100 - EYE) if up > 0 else EYE
        expected = min(FOCAL * height / abs(up) / 16.0, 255)
        assert abs(int(frame[row, W // 2, 3]) - expected) <= 1.0


def test_pitch_down_moves_horizon_up(render, corridor):
    d = 410.0
    level0 = wall_rows(render(corridor, cam(END_X - d, MID_Y)), W // 2)
    for pitch in (15.0, -15.0):
        rows = wall_rows(render(corridor, cam(END_X - d, MID_Y, pitch=pitch)), W // 2)
        first, last = expected_wall_rows(d, pitch)
        assert abs(rows.min() - first) <= 1 and abs(rows.max() - last) <= 1
        shift = -FOCAL * math.tan(math.radians(pitch))
        assert np.sign(rows.mean() - level0.mean()) == np.sign(shift)  # down: the horizon moves up


def test_pitch_is_clamped(render, corridor):
    a = render(corridor, cam(500.0, MID_Y, pitch=80.0))
    b = render(corridor, cam(500.0, MID_Y, pitch=89.0))
    np.testing.assert_array_equal(a, b)


NORTH_CORRIDOR = register("""
***
* *
* *
* *
*P*
***
""")


def test_yaw_convention(render):
    """yaw 90 looks along +y (up the text rows); yaw -90 along -y."""
    level = make_level(NORTH_CORRIDOR)
    x, y = 150.0, 150.0          # cell (4, 1); the corridor's top wall is at y = 500
    up = render(level, cam(x, y, yaw=90.0))[H // 2, W // 2, 3]
    down = render(level, cam(x, y, yaw=-90.0))[H // 2, W // 2, 3]
    assert abs(int(up) - (500 - y) / 16) <= 1
    assert abs(int(down) - (y - 100) / 16) <= 1


OPEN_ROOM = register("""
*********
*P   A  *
*********
""")
WALL_BETWEEN = register("""
*********
*P  *A  *
*********
""")
WALL_BEHIND = register("""
*********
*P  A*  *
*********
""")


def red_pixels(frame):
    px = frame[..., :3].astype(int)
    return (px[..., 0] > 110) & (px[..., 1] < 70) & (px[..., 2] < 70)


def test_sprite_visible_in_open_and_hidden_behind_wall(render):
    assert PICKUP_TYPES[PICKUP_INDEX["apple_reward"]].color[0] > 150
    seen = render(make_level(OPEN_ROOM), cam(150.0, 150.0))
    hidden = render(make_level(WALL_BETWEEN), cam(150.0, 150.0))
    assert red_pixels(seen).sum() > 20
    assert red_pixels(hidden).sum() == 0


def test_sprite_in_front_of_wall_is_drawn_nearer(render):
    frame = render(make_level(WALL_BEHIND), cam(150.0, 150.0))
    red = red_pixels(frame)
    assert red.sum() > 20
    rows, cols = np.nonzero(red)
    # The apple (centre x = 450) is 300 units ahead; the wall behind it at x = 500.
    sprite_depth = frame[rows, cols, 3].astype(int)
    assert np.all(np.abs(sprite_depth - 300 / 16) <= 1)
    wall_depth = int(frame[rows.min() - 4, W // 2, 3])  # the end wall just above the apple
    assert abs(wall_depth - 350 / 16) <= 1 and sprite_depth.max() < wall_depth
    # Centred on the view axis and about the right size on screen.
    radius_px = FOCAL * PICKUP_TYPES[PICKUP_INDEX["apple_reward"]].radius / 300
    assert abs(cols.mean() + 0.5 - W / 2) < 1.5
    assert abs((cols.max() - cols.min() + 1) - 2 * radius_px) <= 2


def test_only_present_pickups_are_drawn(render):
    level = make_level(OPEN_ROOM)
    frame = render(level, cam(150.0, 150.0), present=jnp.zeros_like(level.pickup_valid))
    assert red_pixels(frame).sum() == 0


SMALL_ROOM = register("""
*******
*     *
*P  A *
*     *
*******
""")


def test_sprite_to_the_left_appears_on_the_left(render):
    level = make_level(SMALL_ROOM)
    # Looking along +x with the apple at +y (the player's left): left image half.
    apple = np.asarray(level.pickup_pos[0])
    frame = render(level, cam(150.0, apple[1] - 60.0, yaw=0.0))
    cols = np.nonzero(red_pixels(frame))[1]
    assert len(cols) > 0 and cols.max() < W / 2


GOAL_ROOM = register(OPEN_ROOM.replace("A", "G"))


def test_goal_looks_bigger_than_apple(render):
    goal = make_level(GOAL_ROOM)
    apple = make_level(OPEN_ROOM)
    g = render(goal, cam(150.0, 150.0))
    a = render(apple, cam(150.0, 150.0))
    g_px = (chroma(g) > 90).sum()   # vivid blue goal
    a_px = red_pixels(a).sum()
    assert g_px > 1.5 * a_px > 0


DOOR_MAP = register("""
********
*P I   *
********
""")


def test_closed_door_drawn_open_door_not(render):
    level = make_level(DOOR_MAP)
    x = 150.0
    closed = render(level, cam(x, 150.0), doors=jnp.array([True]))
    opened = render(level, cam(x, 150.0), doors=jnp.array([False]))
    # Closed: the door face at x = 300; open: the end wall at x = 700.
    assert abs(int(closed[H // 2, W // 2, 3]) - (300 - x) / 16) <= 1
    assert abs(int(opened[H // 2, W // 2, 3]) - (700 - x) / 16) <= 1
    # The door looks different from walls: reddish-brown wood vs pale stone.
    door_px = closed[H // 2 + 3, W // 2, :3].astype(int)
    wall_px = opened[H // 2 + 3, W // 2, :3].astype(int)
    assert door_px[0] - door_px[2] > 60 and wall_px[0] - wall_px[2] < 45


def test_variations_change_wall_colour(render, corridor):
    plain = make_level(CORRIDOR)
    a = render(plain, cam(END_X - 300.0, MID_Y))[H // 2, W // 2, :3].astype(int)
    b = render(corridor, cam(END_X - 300.0, MID_Y))[H // 2, W // 2, :3].astype(int)
    assert np.abs(a - b).max() > 40
    themes = STYLE_TABLE[:27, :3]
    pair_dist = np.abs(themes[:, None] - themes[None]).max(-1) + np.eye(27) * 1e3
    assert pair_dist.min() > 8  # every theme has its own colour


@pytest.mark.parametrize("w,h,depth", [(7, 5, True), (96, 72, False), (33, 17, True), (48, 36, True)])
def test_shapes_and_dtypes(render, corridor, w, h, depth):
    frame = render(corridor, cam(300.0, MID_Y, yaw=10.0), width=w, height=h, depth=depth)
    assert frame.shape == (h, w, 4 if depth else 3)
    assert frame.dtype == np.uint8


MIXED_MAP = register("""
*********
*P  A  G*
* *H* * *
*A    I *
*********
""")


def test_vmap_matches_single_renders():
    level = make_level(MIXED_MAP)
    n = 6
    rng = np.random.default_rng(1)
    cams = Camera(pos=jnp.asarray(np.stack([rng.uniform(120, 780, n), rng.uniform(120, 380, n)], -1), jnp.float32),
                  eye_z=jnp.full((n,), EYE, jnp.float32),
                  yaw=jnp.asarray(rng.uniform(-180, 180, n), jnp.float32),
                  pitch=jnp.asarray(rng.uniform(-30, 30, n), jnp.float32))
    doors = jnp.asarray(rng.random((n, level.door_valid.shape[0])) < 0.5)
    present = jnp.asarray(rng.random((n, level.pickup_valid.shape[0])) < 0.7)

    def one(c, d, p):
        return render_first_person(level, c, d, level.pickup_pos, p, width=48, height=36, with_depth=True)

    batched = np.asarray(jax.jit(jax.vmap(one))(cams, doors, present))
    single = _renderer(48, 36, True)
    for i in range(n):
        cam_i = jax.tree_util.tree_map(lambda a: a[i], cams)
        ref = np.asarray(single(level, cam_i, doors[i], level.pickup_pos, present[i]))
        diff = np.abs(batched[i].astype(int) - ref)
        # Identical up to float rounding at a rare pixel edge.
        assert (diff > 2).mean() < 0.003, i


def _reference_distance(cells, rows, x, y, dx, dy):
    """Perpendicular distance to the first wall along (dx, dy) by fine marching (numpy)."""
    t = np.arange(0.0, 3000.0, 0.25)
    px, py = x + t * dx, y + t * dy
    c = np.floor(px / 100).astype(int)
    r = rows - 1 - np.floor(py / 100).astype(int)
    solid = cells[np.clip(r, 0, cells.shape[0] - 1), np.clip(c, 0, cells.shape[1] - 1)] == CELL_WALL
    return t[np.argmax(solid)]


MAZE = register("""
***********
*P    *   *
* **  * * *
*  *    * *
** *** ** *
*    *    *
***********
""")


def test_wall_depth_matches_reference_raymarch(render):
    """At the horizon row every column shows the wall; its depth matches a brute-force march."""
    level = make_level(MAZE)
    cells = np.asarray(level.cells)
    rows = int(level.rows)
    rng = np.random.default_rng(7)
    free = np.argwhere(cells != CELL_WALL)
    w, h = 48, 36
    for _ in range(6):
        r, c = free[rng.integers(len(free))]
        x = c * 100 + rng.uniform(20, 80)
        y = (rows - 1 - r) * 100 + rng.uniform(20, 80)
        yaw = rng.uniform(-180, 180)
        frame = render(level, cam(x, y, yaw=yaw), width=w, height=h)
        fwd = np.array([math.cos(math.radians(yaw)), math.sin(math.radians(yaw))])
        right = np.array([fwd[1], -fwd[0]])
        for col in range(0, w, 5):
            ray = fwd + right * (col + 0.5 - w / 2) / (w / 2)
            d = _reference_distance(cells, rows, x, y, *ray)
            assert abs(int(frame[h // 2, col, 3]) - d / 16) <= 1.0, (x, y, yaw, col, d)
