"""Level fields for compiled Lua levels: canPickup, custom observations,
screen messages, bots, and the compiled-bank file (``*.jaxlab``)."""
from __future__ import annotations

import functools
import json
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab import bank_file
from jaxlab.bank import Bank
from jaxlab.bank_file import BankFileError, load_bank, save_bank
from jaxlab.errors import UnknownNameError
from jaxlab.levels.dmlab.level import Level, build_level
from jaxlab.levels.dmlab.level_fields import ALIGN_CENTER, ALIGN_LEFT, ALIGN_RIGHT, custom_obs_array, screen_text
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab.map_parser import parse_text_map
from jaxlab.render import Camera, render_first_person
from jaxlab.render.first_person import screen_text as text_lib

CORRIDOR = """
*********
*P  A   *
*********
"""
APPLE_X = 450.0
LOCATIONS = np.array([[1.0, 2.0, 3.0], [-4.0, 5.5, 6.25]], np.float32)
ORDERS = (b"Find apples!", b"Go")
OBS = ("LOCATION", "ORDER", "DEBUG.POS.TRANS")
MESSAGE = "Find the apples!"


def corridor_level(index: int, **replace) -> Level:
    """Level ``index`` of the shared bank: a corridor whose apple is takeable only in level 0."""
    level = build_level(parse_text_map(CORRIDOR), episode_seconds=60)
    order = np.frombuffer(ORDERS[index], np.uint8)
    return level.replace(pickup_takeable=np.array([index == 0]),
                         custom_obs={"LOCATION": custom_obs_array("LOCATION", LOCATIONS[index].astype(np.float64)),
                                     "ORDER": custom_obs_array("ORDER", order)}, **replace)


@pytest.fixture(scope="module")
def bank():
    """Two levels: 0 with a takeable apple, 1 with a non-takeable one and one message (no bots: a level
    with bots plays laser tag, ``test_lasertag``)."""
    return Bank.stack([
        corridor_level(0),
        corridor_level(1, **screen_text([(MESSAGE, 320.0, 230.0, ALIGN_CENTER)])),
    ])


@pytest.fixture(scope="module")
def env(bank):
    return FirstPersonEnv(bank, observations=OBS, action_repeat=20)


@pytest.fixture(scope="module")
def batch_step(env):
    return jax.jit(jax.vmap(env.step))


def start_both(env):
    """One episode of each bank level, facing +x along the corridor."""
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    states = jax.vmap(env.init_state)(keys, jnp.arange(2, dtype=jnp.int32))
    return states.replace(yaw=jnp.zeros(2, jnp.float32))


# -- fields and banks ------------------------------------------------------------------------------

def test_built_in_levels_get_defaults():
    level = build_level(parse_text_map(CORRIDOR), episode_seconds=60)
    assert np.asarray(level.pickup_takeable).tolist() == [True]
    assert level.custom_obs == {}
    assert level.text_chars.shape == (0, 1) and level.text_pos.shape == (0, 2)
    assert level.text_align.shape == (0,) and level.text_valid.shape == (0,)
    assert level.bot_skill.shape == (0,) and level.bot_valid.shape == (0,)
    bank = Bank.stack([level, level])
    assert bank.levels.text_chars.shape == (2, 0, 1) and bank.levels.bot_valid.shape == (2, 0)
    assert bank.get(jnp.int32(1)).text_valid.shape == (0,)


def test_stacking_pads_messages_bots_and_custom_observations(bank):
    with_bots = Bank.stack([bank.get(jnp.int32(0)), bank.get(jnp.int32(1)).replace(
        bot_skill=np.array([1.0, 4.0], np.float32), bot_valid=np.array([True, True]))])
    levels = with_bots.levels
    assert levels.text_chars.shape == (2, 1, len(MESSAGE)) and levels.text_valid.tolist() == [[False], [True]]
    assert levels.bot_skill.shape == (2, 2) and levels.bot_valid.tolist() == [[False, False], [True, True]]
    assert levels.custom_obs["ORDER"].shape == (2, 12) and levels.custom_obs["ORDER"].dtype == jnp.uint8
    assert bytes(np.asarray(levels.custom_obs["ORDER"][1])) == b"Go" + bytes(10)
    assert levels.custom_obs["LOCATION"].dtype == jnp.float32


@pytest.mark.parametrize("other, match", [
    ({"LOCATION": np.zeros(3, np.float32)}, "ORDER"),
    ({"LOCATION": np.zeros(3, np.float32), "ORDER": np.zeros(2, np.float32)}, "'ORDER'"),
    ({"LOCATION": np.zeros((3, 1), np.float32), "ORDER": np.zeros(2, np.uint8)}, "'LOCATION'"),
    ({"LOCATION": np.zeros(3, np.int32), "ORDER": np.zeros(2, np.uint8)}, "'LOCATION'"),
])
def test_stacking_mismatched_custom_observations_raises(other, match):
    with pytest.raises(ValueError, match=match):
        Bank.stack([corridor_level(0), corridor_level(0).replace(custom_obs=other)])


def test_custom_observations_are_uint8_or_float32():
    assert custom_obs_array("ORDER", np.zeros(2, np.uint8)).dtype == np.uint8
    doubles = custom_obs_array("LOCATION", np.array([0.1, 2.0]))
    assert doubles.dtype == np.float32 and doubles.tolist() == [np.float32(0.1), 2.0]
    for bad in (np.zeros(3, np.int32), np.zeros(3, bool), np.array(["a"])):
        with pytest.raises(ValueError, match="custom observation 'LOCATION'.*neither uint8"):
            custom_obs_array("LOCATION", bad)


# -- canPickup -------------------------------------------------------------------------------------

def test_non_takeable_apple_pays_nothing_and_stays(env, batch_step):
    states = start_both(env)
    forward = jnp.tile(jnp.array([0, 0, 0, 1, 0, 0, 0], jnp.int32), (2, 1))
    total = np.zeros(2)
    passed = np.zeros(2, bool)
    for _ in range(6):
        states, ts = batch_step(states, forward)
        total += np.asarray(ts.reward)
        passed |= np.asarray(ts.observation["DEBUG.POS.TRANS"])[:, 0] > APPLE_X + 30
    assert total.tolist() == [1.0, 0.0]          # the takeable apple pays, the other never
    assert passed[1]                              # the player walked through the untaken apple
    assert np.asarray(states.pickup_wait[1]).tolist() == [0]


# -- custom observations ---------------------------------------------------------------------------

def test_custom_observation_spec_and_values_per_episode(env, batch_step):
    spec = env.observation_spec()
    assert spec["LOCATION"].shape == (3,) and spec["LOCATION"].dtype == np.float32
    assert spec["ORDER"].shape == (12,) and spec["ORDER"].dtype == np.uint8
    states = start_both(env)
    _, ts = batch_step(states, jnp.zeros((2, 7), jnp.int32))
    np.testing.assert_array_equal(np.asarray(ts.observation["LOCATION"]), LOCATIONS)
    orders = np.asarray(ts.observation["ORDER"])
    assert orders.dtype == np.uint8 and orders.shape == (2, 12)
    assert [bytes(o).rstrip(b"\0") for o in orders] == list(ORDERS)
    # reset samples the level; the observation follows the sampled level
    state, first = jax.jit(env.reset)(jax.random.PRNGKey(3))
    np.testing.assert_array_equal(np.asarray(first.observation["LOCATION"]), LOCATIONS[int(state.level_index)])


def test_unknown_custom_name_suggests(bank):
    with pytest.raises(UnknownNameError, match="Did you mean 'LOCATION'"):
        FirstPersonEnv(bank, observations=("LOCATOIN",))
    with pytest.raises(UnknownNameError, match="RGB_INTERLEAVED"):
        FirstPersonEnv(bank, observations=("RGB_INTERLEAVD",))


def test_custom_observations_through_lab(bank, tmp_path):
    path = str(tmp_path / "compiled.jaxlab")
    save_bank(path, bank, {})
    lab = jaxlab.Lab(path, ["LOCATION", "ORDER"], {"width": "16", "height": "12"})
    spec = {entry["name"]: entry for entry in lab.observation_spec()}
    assert spec["LOCATION"] == {"name": "LOCATION", "shape": (3,), "dtype": np.float64}
    assert spec["ORDER"] == {"name": "ORDER", "shape": (12,), "dtype": np.uint8}
    assert spec["RGB_INTERLEAVED"]["shape"] == (12, 16, 3)
    for episode in (1, 0):
        lab.reset(episode=episode, seed=1)
        obs = lab.observations()
        assert obs["LOCATION"].dtype == np.float64 and obs["ORDER"].dtype == np.uint8
        np.testing.assert_array_equal(obs["LOCATION"], LOCATIONS[episode].astype(np.float64))
        assert bytes(obs["ORDER"]).rstrip(b"\0") == ORDERS[episode]
    with pytest.raises(UnknownNameError, match="Did you mean 'ORDER'"):
        jaxlab.Lab(path, ["ORDRE"])


# -- screen text -----------------------------------------------------------------------------------

def expected_box(text, x, y, align, width, height):
    """Frame-pixel box (row0, row1, col0, col1), inclusive, that a message may cover (shadow included)."""
    span = len(text) * text_lib.CHAR_WIDTH
    left = x - {ALIGN_LEFT: 0.0, ALIGN_RIGHT: span, ALIGN_CENTER: span / 2}[align]
    sx, sy = width / text_lib.VIRTUAL_WIDTH, height / text_lib.VIRTUAL_HEIGHT
    return (int(np.floor(y * sy)), int(np.ceil((y + text_lib.CHAR_HEIGHT) * sy)),
            int(np.floor(left * sx)), int(np.ceil((left + span) * sx)))


def in_box(mask, box):
    inside = np.zeros_like(mask)
    inside[box[0]:box[1] + 1, box[2]:box[3] + 1] = True
    return inside


@functools.lru_cache(maxsize=None)
def _draw(width, height):
    frame = jnp.full((height, width, 4), 100, jnp.uint8)
    return jax.jit(jax.vmap(lambda level: text_lib.draw_text(frame, level)))


def test_text_alignment_moves_the_message():
    base = build_level(parse_text_map(CORRIDOR), episode_seconds=60)
    text, x, y, w, h = "Hello jaxlab", 320.0, 100.0, 320, 240
    levels = [base.replace(**screen_text([(text, x, y, a)])) for a in (0, 1, 2)]
    levels.append(levels[0].replace(text_valid=np.array([False])))   # a slot that is not a message
    frames = np.asarray(_draw(w, h)(Bank.stack(levels).levels))
    assert (frames[3] == 100).all()
    lefts = []
    for align in (0, 1, 2):
        frame = frames[align]
        assert (frame[..., 3] == 100).all()                       # the depth byte is kept
        changed = (frame[..., :3] != 100).any(-1)
        white = (frame[..., :3] == 255).all(-1)
        black = (frame[..., :3] == 0).all(-1)
        assert white.sum() > 50 and black.sum() > 20
        assert (changed == (white | black)).all()
        box = expected_box(text, x, y, align, w, h)
        assert not (changed & ~in_box(changed, box)).any(), align
        lefts.append(np.nonzero(white)[1].min())
    span_px = len(text) * text_lib.CHAR_WIDTH * w / text_lib.VIRTUAL_WIDTH
    assert abs((lefts[0] - lefts[1]) - span_px) <= 1
    assert abs((lefts[0] - lefts[2]) - span_px / 2) <= 1


@functools.lru_cache(maxsize=None)
def _render(width, height):
    def fn(level):
        camera = Camera(pos=jnp.array([150.0, 150.0]), eye_z=jnp.float32(26.0), yaw=jnp.float32(0.0),
                        pitch=jnp.float32(0.0))
        return render_first_person(level, camera, level.door_valid, level.pickup_pos, level.pickup_valid,
                                   width=width, height=height, with_depth=True)
    return jax.jit(fn)


@pytest.mark.parametrize("width, height", [(96, 72), (320, 240)])
def test_message_renders_white_in_its_region_only(bank, width, height):
    plain = np.asarray(_render(width, height)(bank.get(0)))
    shown = np.asarray(_render(width, height)(bank.get(1)))
    changed = (plain != shown).any(-1)
    white = (shown[..., :3] == 255).all(-1) & changed
    box = expected_box(MESSAGE, 320.0, 230.0, ALIGN_CENTER, width, height)
    assert white.sum() >= 3
    assert not (changed & ~in_box(changed, box)).any()
    np.testing.assert_array_equal(plain[..., 3], shown[..., 3])   # depth unchanged


def test_levels_without_messages_render_as_before(bank):
    """A padded, invalid message slot and no slot at all give the same frame."""
    built_in = build_level(parse_text_map(CORRIDOR), episode_seconds=60)
    padded = np.asarray(_render(96, 72)(bank.get(0)))
    unpadded = np.asarray(_render(96, 72)(built_in))
    np.testing.assert_array_equal(padded, unpadded)


def test_glyphs_come_from_pillow():
    assert text_lib.GLYPHS.shape[0] == 95 and text_lib.GLYPHS.dtype == bool
    assert not text_lib.GLYPHS[0].any()                          # space
    assert all(text_lib.GLYPHS[ord(c) - 32].any() for c in "AZaz09!~")
    assert len({text_lib.GLYPHS[i].tobytes() for i in range(1, 95)}) == 94   # all distinct


# -- bank files ------------------------------------------------------------------------------------

META = {"name": "compiled", "source": "level.lua", "seeds": [1, 2]}


def assert_same_bank(a: Bank, b: Bank):
    a, b = a.levels, b.levels
    for name in Level.__dataclass_fields__:
        if name == "custom_obs":
            assert sorted(a.custom_obs) == sorted(b.custom_obs)
            pairs = [(a.custom_obs[k], b.custom_obs[k]) for k in a.custom_obs]
        else:
            pairs = [(getattr(a, name), getattr(b, name))]
        for x, y in pairs:
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.shape == y.shape, name
            np.testing.assert_array_equal(x, y, err_msg=name)


def test_bank_file_round_trip(bank, tmp_path):
    path = tmp_path / "level.jaxlab"
    save_bank(path, bank, META)
    loaded, meta = load_bank(path, Level)
    assert_same_bank(bank, loaded)
    assert meta == {**META, "format": bank_file.FORMAT, "version": bank_file.VERSION, "level_type": "Level"}
    assert [p.name for p in tmp_path.iterdir()] == ["level.jaxlab"]   # no temporary left over


def test_failed_save_leaves_no_file(bank, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(OSError, match="disk full"):
        save_bank(tmp_path / "level.jaxlab", bank, META)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="reserved"):
        save_bank(tmp_path / "level.jaxlab", bank, {"version": 7})


def _rewrite(src, dst, edit):
    """Copy the .npz ``src`` to ``dst`` with ``edit(arrays)`` applied."""
    with np.load(src) as data:
        arrays = {k: data[k] for k in data.files}
    edit(arrays)
    with open(dst, "wb") as f:
        np.savez(f, **arrays)


def _set_meta(arrays, **changes):
    arrays["meta"] = np.array(json.dumps({**json.loads(str(arrays["meta"])), **changes}))


def test_bad_bank_files_raise_bank_file_error(bank, tmp_path):
    good = tmp_path / "good.jaxlab"
    save_bank(good, bank, META)
    cases = {}
    cases["missing"] = (tmp_path / "nope.jaxlab", "no such")
    (tmp_path / "text.jaxlab").write_text("hello, not a bank\n")
    cases["text"] = (tmp_path / "text.jaxlab", "not a readable")
    (tmp_path / "cut.jaxlab").write_bytes(good.read_bytes()[:len(good.read_bytes()) // 2])
    cases["truncated"] = (tmp_path / "cut.jaxlab", "not a readable")
    with zipfile.ZipFile(tmp_path / "corrupt.jaxlab", "w") as z:   # a zip whose member is not .npy
        z.writestr("meta.npy", b"garbage")
    cases["corrupt"] = (tmp_path / "corrupt.jaxlab", "not a readable")
    np.save(tmp_path / "array.npy", np.zeros(3))
    cases["npy"] = (tmp_path / "array.npy", "not a jaxlab bank")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    cases["other"] = (tmp_path / "other.npz", "not a jaxlab bank")
    _rewrite(good, tmp_path / "v99.jaxlab", lambda a: _set_meta(a, version=99))
    cases["version"] = (tmp_path / "v99.jaxlab", "unsupported bank file version 99")
    _rewrite(good, tmp_path / "fmt.jaxlab", lambda a: _set_meta(a, format="something"))
    cases["format"] = (tmp_path / "fmt.jaxlab", "not a jaxlab bank")
    _rewrite(good, tmp_path / "lack.jaxlab", lambda a: a.pop("level/pickup_takeable"))
    cases["field"] = (tmp_path / "lack.jaxlab", "pickup_takeable")
    _rewrite(good, tmp_path / "dtype.jaxlab", lambda a: a.update({"level/cells": a["level/cells"].astype(np.int32)}))
    cases["dtype"] = (tmp_path / "dtype.jaxlab", "'cells' is int32.*needs int8")
    _rewrite(good, tmp_path / "rank.jaxlab", lambda a: a.update({"level/rows": a["level/rows"][:, None]}))
    cases["rank"] = (tmp_path / "rank.jaxlab", r"'rows' is int32\[2-d\].*int32\[1-d\]")
    _rewrite(good, tmp_path / "count.jaxlab", lambda a: a.update({"level/rows": a["level/rows"][:1]}))
    cases["count"] = (tmp_path / "count.jaxlab", "disagree on the number of levels")
    _rewrite(good, tmp_path / "custom.jaxlab",
             lambda a: a.update({"custom_obs/ORDER": a["custom_obs/ORDER"].astype(np.int64)}))
    cases["custom"] = (tmp_path / "custom.jaxlab", "custom_obs 'ORDER' is int64")
    for case, (path, match) in cases.items():
        with pytest.raises(BankFileError, match=match) as info:
            load_bank(path, Level)
        assert str(path) in str(info.value), case
        assert isinstance(info.value, ValueError)
