"""Object shapes, patterns, keys, coloured doors, teleport pads and level themes.

One small room, rendered in a few batched calls: each frame shows one
object (or a door) at a fixed camera; silhouettes are compared as masks of
the pixels that differ from the empty room.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.errors import UnknownNameError
from jaxlab.levels.dmlab import object_catalogue as cat
from jaxlab.levels.dmlab.level import build_level
from jaxlab.levels.dmlab.map_parser import parse_text_map
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX, PICKUP_TYPES, pickup_kind
from jaxlab.render import Camera, render_first_person
from jaxlab.render.first_person import textures
from jaxlab.render.first_person.topdown import shape_mask, top_down

W, H = 96, 72
ROOM = """
*********
*A A    *
*       *
*   P   *
*       *
* I     *
*********
"""
ROWS = 7
CAM_XY = (450.0, (ROWS - 1 - 3 + 0.5) * 100.0)        # the P cell: (450, 350)
OBJ_XY = (CAM_XY[0], CAM_XY[1] + 60.0)                # 60 units ahead when looking north


@functools.lru_cache(maxsize=None)
def _level():
    return jax.tree_util.tree_map(jnp.asarray, build_level(parse_text_map(ROOM), episode_seconds=60))


def _camera(yaw, eye_z=26.0):
    f = jnp.float32
    return Camera(pos=jnp.asarray(CAM_XY, f), eye_z=f(eye_z), yaw=f(yaw), pitch=f(0.0))


@functools.lru_cache(maxsize=None)
def _batched():
    level = _level()

    def one(kind, present, yaw, door_lock, theme):
        lv = level.replace(pickup_kind=level.pickup_kind.at[0].set(kind))
        pos = level.pickup_pos.at[0].set(jnp.asarray(OBJ_XY, jnp.float32))
        return render_first_person(lv, _camera(yaw), jnp.ones_like(level.door_valid), pos,
                                   jnp.zeros_like(level.pickup_valid).at[0].set(present),
                                   width=W, height=H, with_depth=False, door_lock=door_lock, theme=theme)
    return jax.jit(jax.vmap(one))


def render_batch(kinds, present=True, yaw=90.0, door_lock=0, theme=0):
    """Frames uint8[B, H, W, 3]; scalars broadcast over the batch."""
    kinds = np.atleast_1d(np.asarray(kinds, np.int32))
    b = len(kinds)
    d = _level().door_valid.shape[0]
    lock = np.broadcast_to(np.asarray(door_lock, np.int32).reshape(-1, 1), (b, d)) if np.ndim(door_lock) <= 1 \
        else np.asarray(door_lock, np.int32)
    return np.asarray(_batched()(jnp.asarray(kinds), jnp.broadcast_to(jnp.asarray(present), (b,)),
                                 jnp.broadcast_to(jnp.float32(yaw), (b,)), jnp.asarray(lock),
                                 jnp.broadcast_to(jnp.asarray(theme, jnp.int32), (b,))))


@pytest.fixture(scope="module")
def shapes_and_patterns():
    """Frames of: the empty room; every shape (red, plain); every pattern (blue box); keys; the pad."""
    kinds = ([0]
             + [cat.object_kind(s, 0, 0) for s in range(cat.NUM_OBJECT_SHAPES)]
             + [cat.object_kind(1, 2, p) for p in range(cat.NUM_OBJECT_PATTERNS)]
             + [cat.key_kind(k) for k in range(1, cat.NUM_KEY_COLOURS + 1)]
             + [cat.TELEPORT_PAD_KIND])
    present = np.ones(len(kinds), bool)
    present[0] = False
    frames = render_batch(kinds, present=jnp.asarray(present))
    n_s, n_p, n_k = cat.NUM_OBJECT_SHAPES, cat.NUM_OBJECT_PATTERNS, cat.NUM_KEY_COLOURS
    empty = frames[0]
    return dict(empty=empty, shapes=frames[1:1 + n_s], patterns=frames[1 + n_s:1 + n_s + n_p],
                keys=frames[1 + n_s + n_p:1 + n_s + n_p + n_k], pad=frames[-1])


def mask(frame, empty):
    return np.abs(frame.astype(int) - empty.astype(int)).sum(-1) > 30


# --- the table ---------------------------------------------------------------

def test_table_layout_and_names():
    assert [p.name for p in PICKUP_TYPES[:7]] == ["apple_reward", "lemon_reward", "strawberry_reward",
                                                  "fungi_reward", "goal", "watermelon_goal", "mango_goal"]
    assert all(p.shape == "ball" and p.pattern == "plain" for p in PICKUP_TYPES[:7])
    assert cat.NUM_CATALOGUE_KINDS == cat.TELEPORT_PAD_KIND + 1
    assert PICKUP_TYPES[cat.NUM_CATALOGUE_KINDS].name == "mushroom"
    assert cat.NUM_OBJECT_SHAPES >= 5 and cat.NUM_OBJECT_COLOURS >= 8 and cat.NUM_OBJECT_PATTERNS >= 4
    for s, shape in enumerate(cat.OBJECT_SHAPES):
        for c, colour in enumerate(cat.OBJECT_COLOUR_NAMES):
            for p, pattern in enumerate(cat.OBJECT_PATTERNS):
                k = cat.object_kind(s, c, p)
                row = PICKUP_TYPES[k]
                assert row.name == f"{colour}_{pattern}_{shape}" == PICKUP_TYPES[pickup_kind(row.name)].name
                assert (row.shape, row.pattern, row.reward, row.is_goal) == (shape, pattern, 0.0, False)
                assert 14.0 <= max(row.radius, row.half_height) <= 30.0
    for k, colour in enumerate(cat.KEY_COLOURS, start=1):
        assert PICKUP_TYPES[cat.key_kind(k)].name == f"key_{colour}" and PICKUP_TYPES[cat.key_kind(k)].shape == "key"
        assert int(cat.key_colour_of_kind(cat.key_kind(k))) == k
    assert int(cat.key_colour_of_kind(0)) == 0
    assert PICKUP_TYPES[cat.TELEPORT_PAD_KIND].name == "teleport_pad"
    pillar = PICKUP_TYPES[PICKUP_INDEX["red_plain_pillar"]]
    assert pillar.half_height > 2 * pillar.radius
    with pytest.raises(UnknownNameError, match="red_stripes_box"):
        pickup_kind("red_stripe_box")


def test_kind_helpers_are_jittable():
    s, c, p = jnp.meshgrid(jnp.arange(cat.NUM_OBJECT_SHAPES), jnp.arange(cat.NUM_OBJECT_COLOURS),
                           jnp.arange(cat.NUM_OBJECT_PATTERNS), indexing="ij")
    kinds = np.asarray(jax.jit(cat.object_kind)(s, c, p)).reshape(-1)
    assert kinds.dtype == np.int32
    assert sorted(kinds) == list(range(cat.FIRST_OBJECT_KIND, cat.FIRST_KEY_KIND))
    assert int(cat.object_kind(s[1, 2, 3], c[1, 2, 3], p[1, 2, 3])) == cat.object_kind(1, 2, 3)
    keys = np.asarray(jax.jit(cat.key_kind)(jnp.arange(1, cat.NUM_KEY_COLOURS + 1)))
    assert list(keys) == [cat.key_kind(k) for k in range(1, cat.NUM_KEY_COLOURS + 1)]
    assert cat.key_colour_index("blue") == cat.KEY_COLOURS.index("blue") + 1


# --- sprites -----------------------------------------------------------------

def test_every_shape_has_its_own_silhouette(shapes_and_patterns):
    empty = shapes_and_patterns["empty"]
    masks = [mask(f, empty) for f in shapes_and_patterns["shapes"]]
    for name, m in zip(cat.OBJECT_SHAPES, masks):
        assert m.sum() > 40, name
    for i in range(len(masks)):
        for j in range(i + 1, len(masks)):
            diff = (masks[i] ^ masks[j]).sum()
            assert diff > 0.15 * min(masks[i].sum(), masks[j].sum()), (cat.OBJECT_SHAPES[i], cat.OBJECT_SHAPES[j])

    def extent(m):
        rows, cols = np.nonzero(m)
        return rows.max() - rows.min() + 1, cols.max() - cols.min() + 1
    by = dict(zip(cat.OBJECT_SHAPES, masks))
    h, w = extent(by["pillar"])
    assert h > 2 * w                                       # tall and thin
    rows, cols = np.nonzero(by["triangle"])
    top, bottom = rows.min(), rows.max()
    assert by["triangle"][top + 1].sum() < by["triangle"][bottom - 1].sum()  # points up
    r, c = int(np.mean(np.nonzero(by["ring"])[0])), int(np.mean(np.nonzero(by["ring"])[1]))
    assert not by["ring"][r, c] and by["ball"][r, c]       # a hole in the middle


def test_patterns_differ_and_use_two_colours(shapes_and_patterns):
    empty = shapes_and_patterns["empty"]
    frames = shapes_and_patterns["patterns"]
    m = mask(frames[0], empty)
    assert m.sum() > 40
    pixels = [f[m].astype(int) for f in frames]
    light = [(p.sum(-1) > 450).mean() for p in pixels]       # blue's pattern colour is a pale blue
    assert light[0] < 0.02                                  # plain: no second colour
    assert all(0.1 < x < 0.9 for x in light[1:]), light
    for i in range(len(frames)):
        for j in range(i + 1, len(frames)):
            assert (np.abs(pixels[i] - pixels[j]).sum(-1) > 60).mean() > 0.08, (i, j)


def test_keys_show_their_colour(shapes_and_patterns):
    empty = shapes_and_patterns["empty"]
    for k, frame in enumerate(shapes_and_patterns["keys"], start=1):
        m = mask(frame, empty)
        assert m.sum() > 20
        mean = frame[m].astype(float).mean(0)
        want = np.asarray(cat.KEY_RGB[k - 1], float)
        others = [np.asarray(c, float) for c in cat.KEY_RGB]
        # The key's mean colour is nearest (in direction) to its own key colour.
        cos = [mean @ o / np.linalg.norm(mean) / np.linalg.norm(o) for o in others]
        assert int(np.argmax(cos)) == k - 1, (cat.KEY_COLOURS[k - 1], mean, want)
    # A key is wider than tall, unlike a ball.
    rows, cols = np.nonzero(mask(shapes_and_patterns["keys"][0], empty))
    assert cols.max() - cols.min() > 1.5 * (rows.max() - rows.min())


def test_teleport_pad_lies_on_the_floor(shapes_and_patterns):
    empty = shapes_and_patterns["empty"]
    pad = mask(shapes_and_patterns["pad"], empty)
    ball = mask(shapes_and_patterns["shapes"][0], empty)
    rows, cols = np.nonzero(pad)
    assert pad.sum() > 20
    assert cols.max() - cols.min() > 3 * (rows.max() - rows.min())   # flat and wide
    ball_rows = np.nonzero(ball)[0]
    assert rows.min() > ball_rows.mean() and rows.max() > ball_rows.max()   # lower than floating objects
    assert rows.min() > H // 2                                        # below the horizon


# --- doors -------------------------------------------------------------------

def _door_frames():
    locks = list(range(0, cat.NUM_KEY_COLOURS + 1)) + [-1]
    # Look south-west (towards) the door 'I' (row 5, col 2): face the door cell.
    frames = render_batch([0] * len(locks), present=False, yaw=225.0, door_lock=np.asarray(locks))
    return locks, frames


def test_each_key_colour_door_is_drawn_in_its_colour():
    locks, frames = _door_frames()
    plain = frames[0]
    door = np.abs(frames[1].astype(int) - plain.astype(int)).sum(-1) > 60   # where the door is
    assert door.sum() > 30
    for lock, frame in zip(locks[1:-1], frames[1:-1]):
        mean = frame[door].astype(float).mean(0)
        cos = [mean @ np.asarray(c) / np.linalg.norm(mean) / np.linalg.norm(c) for c in cat.KEY_RGB]
        assert int(np.argmax(cos)) == lock - 1, (lock, mean)
    shut = frames[-1][door].astype(float).mean()
    assert shut < 0.8 * plain[door].astype(float).mean()                  # darker than a plain door


def test_door_lock_zero_and_theme_zero_match_none():
    level = _level()
    d = level.door_valid.shape[0]
    cam = _camera(200.0)
    present = level.pickup_valid

    @functools.partial(jax.jit, static_argnames=("extra",))
    def run(extra):
        kw = dict(door_lock=jnp.zeros(d, jnp.int32), theme=jnp.int32(0)) if extra else {}
        return render_first_person(level, cam, jnp.ones(d, bool), level.pickup_pos, present,
                                   width=W, height=H, with_depth=True, **kw)
    np.testing.assert_array_equal(np.asarray(run(False)), np.asarray(run(True)))


# --- themes ------------------------------------------------------------------

def test_themes_change_floor_and_ceiling():
    n = textures.NUM_LEVEL_THEMES
    assert n >= 6 and len(textures.LEVEL_THEME_NAMES) == n
    frames = render_batch([0] * n, present=False, yaw=90.0, theme=np.arange(n))
    ceiling = frames[:, 2].reshape(n, -1, 3).astype(float).mean(1)
    floor = frames[:, -3].reshape(n, -1, 3).astype(float).mean(1)
    wall = frames[:, H // 2].reshape(n, -1, 3).astype(float).mean(1)
    for i in range(n):
        for j in range(i + 1, n):
            looks_i = np.concatenate([ceiling[i], floor[i], wall[i]])
            looks_j = np.concatenate([ceiling[j], floor[j], wall[j]])
            assert np.abs(looks_i - looks_j).max() > 25, (textures.LEVEL_THEME_NAMES[i], textures.LEVEL_THEME_NAMES[j])
        if i:
            assert np.abs(floor[i] - floor[0]).max() > 15 and np.abs(ceiling[i] - ceiling[0]).max() > 15


def test_theme_none_is_theme_zero_on_an_existing_level():
    from jaxlab.levels.dmlab.catalogue import builtin_level

    level = jax.tree_util.tree_map(jnp.asarray, builtin_level("nav_maze_static_01"))
    rng = np.random.default_rng(0)
    b = 8
    open_cells = np.argwhere(np.asarray(level.cells) == 0)[rng.integers(0, 10, b)]
    pos = np.stack([(open_cells[:, 1] + 0.5) * 100.0, (int(level.rows) - 1 - open_cells[:, 0] + 0.5) * 100.0], -1)
    cams = Camera(pos=jnp.asarray(pos, jnp.float32), eye_z=jnp.full((b,), 26.0, jnp.float32),
                  yaw=jnp.asarray(rng.uniform(0, 360, b), jnp.float32), pitch=jnp.zeros((b,), jnp.float32))

    def run(theme):
        def one(cam):
            kw = {} if theme is None else dict(theme=jnp.int32(theme))
            return render_first_person(level, cam, level.door_valid, level.pickup_pos, level.pickup_valid,
                                       width=W, height=H, with_depth=True, **kw)
        return np.asarray(jax.jit(jax.vmap(one))(cams))
    np.testing.assert_array_equal(run(None), run(0))


# --- top-down map --------------------------------------------------------------

def test_top_down_draws_shapes_keys_pads_and_door_colours():
    level = _level()
    kinds = np.asarray(level.pickup_kind).copy()
    kinds[0], kinds[1] = cat.object_kind(4, 1, 0), cat.key_kind(3)
    lv = level.replace(pickup_kind=jnp.asarray(kinds))
    px = 24
    plain = top_down(level, cell_px=px)
    img = top_down(lv, cell_px=px, door_lock=np.array([2]))
    # The door bar (row 5, col 2) is drawn in key colour 2 (green).
    block = img[5 * px:6 * px, 2 * px:3 * px].reshape(-1, 3)
    assert (np.abs(block.astype(int) - np.asarray(cat.KEY_RGB[1])).sum(-1) < 10).sum() > px
    # The objects' cells now hold green pillar pixels and blue key pixels.
    cell_a = img[1 * px:2 * px, 1 * px:2 * px].reshape(-1, 3).astype(int)
    cell_b = img[1 * px:2 * px, 3 * px:4 * px].reshape(-1, 3).astype(int)
    assert (np.abs(cell_a - np.asarray(cat.OBJECT_COLOUR_RGB["green"])).sum(-1) < 10).sum() > 10
    assert (np.abs(cell_b - np.asarray(cat.KEY_RGB[2])).sum(-1) < 10).sum() > 5
    assert not np.array_equal(plain, img)
    # The silhouettes of the map are those of the sprites: every shape differs.
    u, v = np.meshgrid(np.linspace(-1, 1, 33), np.linspace(-1, 1, 33))
    masks = [shape_mask(s, u, v) for s in cat.SHAPE_CODES if s != "pad"]
    assert all((a ^ b).sum() > 20 for i, a in enumerate(masks) for b in masks[i + 1:])


def test_sprite_choice_in_turn_and_at_once_agree():
    """The CPU's scan over the sprites and the accelerators' [N, W] min pick the same sprite per column,
    ties (equal depths, the lowest index wins), absent sprites (infinite depth) and walls included."""
    from jaxlab.render.first_person.sprites import _nearest_at_once, _nearest_in_turn
    rng = np.random.default_rng(3)
    n, w = 40, 96
    col = np.arange(w, dtype=np.float32) + 0.5
    picked = []
    for trial in range(20):
        centre_x = rng.uniform(-20, w + 20, n).astype(np.float32)
        key = rng.choice([50.0, 80.0, 120.0, np.inf], n).astype(np.float32)   # repeated depths: ties
        inv_w = (1.0 / rng.uniform(0.5, 6.0, n)).astype(np.float32)
        wall = rng.choice([60.0, 100.0, np.inf], w).astype(np.float32)
        args = tuple(jnp.asarray(a) for a in (col, wall, centre_x, key, inv_w))
        d1, i1 = jax.jit(_nearest_in_turn)(*args)
        d2, i2 = jax.jit(_nearest_at_once)(*args)
        np.testing.assert_array_equal(np.asarray(i1), np.asarray(i2))
        np.testing.assert_array_equal(np.asarray(d1), np.asarray(d2))
        picked.append(np.asarray(i1))
    picked = np.concatenate(picked)
    assert (picked >= 0).mean() > 0.3 and (picked < 0).mean() > 0.05   # both outcomes are exercised
