"""DMLab's language objects: their tables, pickup kinds, silhouettes and how they are drawn."""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.demo.language_sheet import ROOM, language_frames
from jaxlab.levels.dmlab import language_objects as lang
from jaxlab.levels.dmlab.level import build_level
from jaxlab.levels.dmlab.map_parser import parse_text_map
from jaxlab.levels.dmlab.pickup_types import (FIRST_ARENA_KIND, FIRST_DESERT_KIND, FIRST_LANGUAGE_KIND,
                                              FIRST_PLAYER_KIND, PICKUP_INDEX, PICKUP_TYPES)
from jaxlab.render.first_person.silhouettes import GRID, MASK_BITS, MASKS
from jaxlab.render.first_person.topdown import top_down

S, C, P = lang.NUM_LANGUAGE_SHAPES, lang.NUM_LANGUAGE_COLOURS, lang.NUM_LANGUAGE_PATTERNS


def test_tables_hold_dmlabs_names_colours_and_sizes():
    assert (S, C, P) == (40, 13, 9)
    assert lang.LANGUAGE_SHAPES[:3] == ("apple2", "ball", "balloon") and lang.LANGUAGE_SHAPES[-2:] == ("wine_glass", "zebra")
    assert len(set(lang.LANGUAGE_SHAPES)) == 40 and "tennis_racket" in lang.LANGUAGE_SHAPES
    colours = dict(lang.LANGUAGE_COLOURS)
    assert [n for n, _ in lang.LANGUAGE_COLOURS][:4] == ["black", "gray", "white", "red"]
    assert colours["black"] == (0, 0, 0) and colours["white"] == (255, 255, 255) and colours["gray"] == (128, 128, 128)
    assert colours["brown"] == (154, 102, 50) and colours["orange"] == (255, 128, 0)
    assert colours["purple"] == (128, 0, 255) and colours["pink"] == (255, 0, 128) and colours["cyan"] == (0, 255, 255)
    assert lang.LANGUAGE_PATTERNS[lang.SOLID] == "solid" and lang.SOLID == 6 and lang.LANGUAGE_PATTERNS[0] == "chequered"
    assert lang.LANGUAGE_SIZES == ("small", "medium", "large")
    assert lang.size_scale("ball", "small") == 0.62 and lang.size_scale("ball", "large") == 1.62
    assert lang.size_scale("car", "medium") == 0.8 and lang.size_scale("pig", "large") == 1.52
    assert lang.size_scale(7, 2) == 1.02      # car, large
    assert lang.SIZE_SCALES.shape == (40, 3) and lang.SIZE_SCALES.dtype == np.float32
    assert lang.SIZE_SCALES[lang.LANGUAGE_SHAPES.index("hat"), 2] == np.float32(1.55)
    assert (lang.SIZE_SCALES[:, 1] != 1.0).sum() == 4    # car, cassette, chair, cow


def test_kind_round_trips_names_and_runs_under_jit_and_vmap():
    s, c, p = (a.ravel() for a in np.meshgrid(np.arange(S), np.arange(C), np.arange(P), indexing="ij"))
    kinds = [lang.language_object_kind(int(a), int(b), int(d)) for a, b, d in zip(s, c, p)]
    assert kinds == list(range(FIRST_LANGUAGE_KIND, FIRST_LANGUAGE_KIND + S * C * P))
    assert all(PICKUP_TYPES[k].name == lang.language_object_name(int(a), int(b), int(d))
               for k, a, b, d in zip(kinds, s, c, p))
    hat = PICKUP_TYPES[PICKUP_INDEX["lang_red_solid_hat"]]
    assert (hat.reward, hat.is_goal, hat.color) == (0.0, False, (255, 0, 0)) and hat.radius > hat.half_height
    traced = jax.jit(jax.vmap(lang.language_object_kind))(jnp.asarray(s), jnp.asarray(c), jnp.asarray(p))
    np.testing.assert_array_equal(np.asarray(traced), kinds)
    assert lang.language_object_kind(99, -3, 40) == lang.language_object_kind(S - 1, 0, P - 1)
    assert int(jax.jit(lang.language_object_kind)(99, -3, 40)) == lang.language_object_kind(S - 1, 0, P - 1)


def test_existing_kinds_keep_their_indices():
    assert FIRST_LANGUAGE_KIND == lang.FIRST_LANGUAGE_KIND == 381
    assert len(PICKUP_TYPES) == 381 + S * C * P
    assert (PICKUP_INDEX["goal"], PICKUP_INDEX["red_plain_ball"], PICKUP_INDEX["teleport_pad"]) == (4, 7, 363)
    assert (FIRST_DESERT_KIND, FIRST_ARENA_KIND, FIRST_PLAYER_KIND) == (364, 368, 373)
    assert PICKUP_TYPES[FIRST_LANGUAGE_KIND - 1].name.startswith("player_")
    assert PICKUP_TYPES[FIRST_LANGUAGE_KIND].name == "lang_black_chequered_apple2"


def test_silhouettes_differ_pairwise():
    m = MASKS.reshape(S, -1)
    assert MASKS.shape == (S, GRID, GRID) and (m.mean(1) > 0.12).all()
    inter = (m[:, None] & m[None]).sum(-1)
    iou = inter / (m[:, None] | m[None]).sum(-1)
    np.fill_diagonal(iou, 0.0)
    assert iou.max() < 0.8, np.unravel_index(iou.argmax(), iou.shape)
    bits = (MASK_BITS[:, None, :] >> np.arange(GRID, dtype=np.uint32)[None, :, None]) & 1
    np.testing.assert_array_equal(bits.astype(bool), MASKS)


@functools.lru_cache(maxsize=None)
def _frames():
    """[S + 3] frames: every shape in red solid, then the hat in blue solid, red spots and red hex."""
    red, blue, hat = 3, 9, lang.LANGUAGE_SHAPES.index("hat")
    kinds = [lang.language_object_kind(s, red, lang.SOLID) for s in range(S)]
    kinds += [lang.language_object_kind(hat, blue, lang.SOLID), lang.language_object_kind(hat, red, 7),
              lang.language_object_kind(hat, red, 4)]
    return language_frames(kinds).astype(int)


def test_frames_differ_between_shapes_colours_and_patterns():
    frames = _frames()
    shapes = frames[:S].reshape(S, -1, 3)
    differ = (np.abs(shapes[:, None] - shapes[None]).sum(-1) > 30).sum(-1)    # [S, S] pixels that differ
    np.fill_diagonal(differ, 10 ** 6)
    assert differ.min() > 20, np.unravel_index(differ.argmin(), differ.shape)
    hat = lang.LANGUAGE_SHAPES.index("hat")
    for other in frames[S:]:
        assert (np.abs(other - frames[hat]).sum(-1) > 30).sum() > 20
    red = frames[hat].reshape(-1, 3)
    assert ((red[:, 0] > 120) & (red[:, 1] < 40) & (red[:, 2] < 40)).sum() > 50


def test_top_down_draws_the_silhouette():
    level = build_level(parse_text_map(ROOM), episode_seconds=60)
    kinds = np.asarray(level.pickup_kind).copy()
    images = []
    for shape in ("car", "ladder"):
        kinds[0] = lang.language_object_kind(lang.LANGUAGE_SHAPES.index(shape), 7, lang.SOLID)   # green
        images.append(top_down(level.replace(pickup_kind=kinds), cell_px=32).astype(int))
    green = [((im[..., 1] > 200) & (im[..., 0] < 40)).sum() for im in images]
    assert min(green) > 40 and (np.abs(images[0] - images[1]).sum(-1) > 0).sum() > 40
