"""jaxlab.Lab: DeepMind Lab's Python host API (see reference/dmlab_python_api.md)."""
import math

import numpy as np
import pytest

import jaxlab
from jaxlab.bank import Bank
from jaxlab.errors import UnknownNameError
from jaxlab.levels.dmlab.catalogue import read_map_file
from jaxlab.levels.dmlab.level import build_level
from jaxlab.levels.dmlab.units import LOOK_DEGREES_PER_PIXEL

CORRIDOR = """
*******
*PAAAG*
*******
"""
LEFT_SPAWN = """
*******
*P    *
*******
"""
RIGHT_SPAWN = """
*******
*    P*
*******
"""
OBS = ["RGB_INTERLACED", "VEL.TRANS", "DEBUG.POS.TRANS", "DEBUG.POS.ROT"]
SMALL = {"width": "16", "height": "12"}
STILL = np.zeros(7, np.intc)
FORWARD = np.array([0, 0, 0, 1, 0, 0, 0], np.intc)
DMLAB_ACTION_SPEC = [
    {"max": 512, "min": -512, "name": "LOOK_LEFT_RIGHT_PIXELS_PER_FRAME"},
    {"max": 512, "min": -512, "name": "LOOK_DOWN_UP_PIXELS_PER_FRAME"},
    {"max": 1, "min": -1, "name": "STRAFE_LEFT_RIGHT"},
    {"max": 1, "min": -1, "name": "MOVE_BACK_FORWARD"},
    {"max": 1, "min": 0, "name": "FIRE"},
    {"max": 1, "min": 0, "name": "JUMP"},
    {"max": 1, "min": 0, "name": "CROUCH"},
]


@pytest.fixture(scope="module")
def lab_maps(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab_maps")
    paths = {}
    for name, text in (("corridor", CORRIDOR), ("left", LEFT_SPAWN), ("right", RIGHT_SPAWN)):
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text(text)
    return {name: str(path) for name, path in paths.items()}


@pytest.fixture
def lab_corridor(lab_maps):
    """A fresh 16×12 Lab on the corridor map (kernels are compiled once per process and shared)."""
    lab = jaxlab.Lab(lab_maps["corridor"], list(OBS), dict(SMALL))
    yield lab
    lab.close()


def face_east(lab):
    """Turn to yaw 0 (along the corridor) in one 4-frame step."""
    yaw = lab.observations()["DEBUG.POS.ROT"][1]
    pixels = int(round(yaw / LOOK_DEGREES_PER_PIXEL / 4))  # positive LOOK turns right (yaw decreases)
    lab.step(np.array([pixels, 0, 0, 0, 0, 0, 0], np.intc), num_steps=4)
    assert abs(lab.observations()["DEBUG.POS.ROT"][1]) < 1.0


# -- construction and config -----------------------------------------------------------------------

def test_defaults_match_dmlab():
    lab = jaxlab.Lab("seekavoid_arena_01", [])
    assert lab.fps() == 60
    assert not lab.is_running()
    spec = {entry["name"]: entry for entry in lab.observation_spec()}
    assert spec["RGB_INTERLEAVED"]["shape"] == (240, 320, 3) and spec["RGB_INTERLEAVED"]["dtype"] is np.uint8
    assert spec["RGB_INTERLACED"]["shape"] == (240, 320, 3)
    assert spec["RGBD_INTERLEAVED"]["shape"] == (240, 320, 4)
    assert spec["RGB"]["shape"] == (3, 240, 320) and spec["RGBD"]["shape"] == (4, 240, 320)
    for name in ("VEL.TRANS", "VEL.ROT", "DEBUG.POS.TRANS", "DEBUG.POS.ROT"):
        assert spec[name]["shape"] == (3,) and spec[name]["dtype"] is np.float64
    assert all(set(entry) == {"name", "shape", "dtype"} for entry in lab.observation_spec())
    assert lab.action_spec() == DMLAB_ACTION_SPEC


def test_config_sets_frame_size_and_fps(lab_maps):
    lab = jaxlab.Lab(lab_maps["corridor"], ["RGB"], {"width": "16", "height": "12", "fps": "30"})
    assert lab.fps() == 30
    spec = {entry["name"]: entry["shape"] for entry in lab.observation_spec()}
    assert spec["RGB"] == (3, 12, 16) and spec["RGB_INTERLEAVED"] == (12, 16, 3)


def test_unknown_config_key_is_named_with_suggestion(lab_maps):
    with pytest.raises(UnknownNameError, match=r"'widht'.*Did you mean 'width'"):
        jaxlab.Lab(lab_maps["corridor"], [], {"widht": "16"})
    with pytest.raises(UnknownNameError, match="episodeLengthSeconds"):
        jaxlab.Lab(lab_maps["corridor"], [], {"episodeLengthSecond": "5"})


def test_bad_config_values(lab_maps):
    path = lab_maps["corridor"]
    with pytest.raises(TypeError, match="strings"):
        jaxlab.Lab(path, [], {"width": 16})
    for bad in ({"width": "abc"}, {"height": "0"}, {"fps": "-3"}, {"episodeLengthSeconds": "0"},
                {"appendCommand": "set cg_fov 90"}):
        with pytest.raises(ValueError):
            jaxlab.Lab(path, [], bad)
    jaxlab.Lab(path, [], {"appendCommand": ""})  # the DMLab default is accepted


def test_unknown_names_raise_with_suggestions(lab_maps):
    with pytest.raises(UnknownNameError, match="Did you mean 'RGB_INTERLEAVED'"):
        jaxlab.Lab(lab_maps["corridor"], ["RGB_INTERLEAVD"])
    with pytest.raises(UnknownNameError, match="seekavoid_arena_01"):
        jaxlab.Lab("seekavoid_arena_1", [])
    with pytest.raises(ValueError, match="renderer"):
        jaxlab.Lab(lab_maps["corridor"], [], renderer="opengl")
    with pytest.raises(TypeError):
        jaxlab.Lab(lab_maps["corridor"], "RGB_INTERLEAVED")
    jaxlab.Lab(lab_maps["corridor"], [], renderer="hardware")


# -- status ----------------------------------------------------------------------------------------

def test_before_reset_nothing_runs(lab_corridor):
    assert not lab_corridor.is_running()
    with pytest.raises(RuntimeError, match="reset"):
        lab_corridor.step(STILL)
    with pytest.raises(RuntimeError, match="reset"):
        lab_corridor.observations()
    assert lab_corridor.num_steps() == 0
    assert lab_corridor.reset() is True and lab_corridor.is_running()


def test_close_leaves_only_is_running(lab_corridor):
    lab_corridor.reset(seed=1)
    assert lab_corridor.close() is True
    assert not lab_corridor.is_running()
    calls = {
        "reset": lambda: lab_corridor.reset(),
        "step": lambda: lab_corridor.step(STILL),
        "step (bad action)": lambda: lab_corridor.step([0] * 7),
        "observations": lab_corridor.observations,
        "observation_spec": lab_corridor.observation_spec,
        "action_spec": lab_corridor.action_spec,
        "fps": lab_corridor.fps,
        "num_steps": lab_corridor.num_steps,
        "events": lab_corridor.events,
    }
    for name, call in calls.items():
        with pytest.raises(RuntimeError, match="close"):
            call()
    assert lab_corridor.close() is False  # closing twice is harmless, as in DMLab


# -- stepping --------------------------------------------------------------------------------------

def test_actions_are_validated(lab_corridor):
    lab_corridor.reset(seed=0)
    bad_actions = {
        "list": [0, 0, 0, 1, 0, 0, 0],
        "float64": np.zeros(7, np.float64),
        "int64": np.zeros(7, np.int64),
        "shape (6,)": np.zeros(6, np.intc),
        "shape (1, 7)": np.zeros((1, 7), np.intc),
    }
    for what, action in bad_actions.items():
        with pytest.raises(ValueError):
            lab_corridor.step(action)
    for index, value, name in ((3, 2, "MOVE_BACK_FORWARD"), (1, -600, "LOOK_DOWN_UP_PIXELS_PER_FRAME"),
                               (4, -1, "FIRE"), (0, 513, "LOOK_LEFT_RIGHT_PIXELS_PER_FRAME")):
        action = STILL.copy()
        action[index] = value
        with pytest.raises(ValueError, match=name):
            lab_corridor.step(action)
    for num_steps, error in ((0, ValueError), (-1, ValueError), (1.5, TypeError)):
        with pytest.raises(error, match="num_steps"):
            lab_corridor.step(STILL, num_steps=num_steps)
    assert lab_corridor.num_steps() == 0 and lab_corridor.is_running()
    assert lab_corridor.step(np.array([512, -512, -1, -1, 1, 1, 1], np.int32)) == 0.0  # the extremes are fine
    assert lab_corridor.num_steps() == 1


def test_num_steps_counts_frames(lab_corridor):
    lab_corridor.reset(seed=0)
    lab_corridor.step(STILL, num_steps=4)
    lab_corridor.step(STILL)
    lab_corridor.step(STILL, num_steps=3)
    assert lab_corridor.num_steps() == 8
    lab_corridor.reset(seed=0)
    assert lab_corridor.num_steps() == 0


def test_reward_sums_over_num_steps(lab_corridor):
    lab_corridor.reset(seed=3)
    face_east(lab_corridor)
    grouped = np.array([lab_corridor.step(FORWARD, num_steps=4) for _ in range(24)])
    lab_corridor.reset(seed=3)
    face_east(lab_corridor)
    single = np.array([lab_corridor.step(FORWARD) for _ in range(96)])
    assert grouped.sum() >= 13.0  # three apples and the goal
    assert (grouped > 0).sum() >= 4
    np.testing.assert_allclose(grouped, single.reshape(24, 4).sum(axis=1))
    assert isinstance(lab_corridor.step(FORWARD), float)


@pytest.mark.parametrize("key", ["episodeLengthSeconds", "episode_length_seconds"])
def test_episode_end_stops_running(lab_maps, key):
    lab = jaxlab.Lab(lab_maps["corridor"], list(OBS), {**SMALL, key: "0.1"})  # 6 frames at 60 fps
    lab.reset(seed=0)
    lab.step(STILL, num_steps=4)
    assert lab.is_running()
    lab.step(STILL, num_steps=4)
    assert not lab.is_running()
    assert lab.num_steps() == 8
    with pytest.raises(RuntimeError, match="ended"):
        lab.step(STILL)
    with pytest.raises(RuntimeError, match="ended"):
        lab.observations()
    assert lab.events() == []
    lab.reset()
    assert lab.is_running() and lab.num_steps() == 0
    lab.step(STILL, num_steps=4)
    assert lab.is_running()


# -- observations and seeds ------------------------------------------------------------------------

def test_observations_are_numpy_with_dmlab_dtypes(lab_corridor):
    lab_corridor.reset(seed=2)
    obs = lab_corridor.observations()
    assert set(obs) == set(OBS)
    assert obs["RGB_INTERLACED"].shape == (12, 16, 3) and obs["RGB_INTERLACED"].dtype == np.uint8
    assert obs["RGB_INTERLACED"].std() > 0  # a real picture, not a blank
    for name in ("VEL.TRANS", "DEBUG.POS.TRANS", "DEBUG.POS.ROT"):
        assert isinstance(obs[name], np.ndarray) and obs[name].shape == (3,) and obs[name].dtype == np.float64
    np.testing.assert_allclose(obs["DEBUG.POS.TRANS"][[0, 2]], [150.0, 0.0])  # spawn cell centre, on the floor
    obs["DEBUG.POS.TRANS"][:] = -1.0  # the caller owns the arrays it gets
    assert lab_corridor.observations()["DEBUG.POS.TRANS"][0] == 150.0
    face_east(lab_corridor)
    lab_corridor.step(FORWARD, num_steps=4)
    after = lab_corridor.observations()
    assert after["VEL.TRANS"][0] > 50.0  # units/s forward
    assert after["DEBUG.POS.TRANS"][0] > 150.0


def test_seeded_reset_is_reproducible(lab_corridor):
    def play(seed):
        lab_corridor.reset(seed=seed)
        start = lab_corridor.observations()
        lab_corridor.step(FORWARD, num_steps=4)
        lab_corridor.step(np.array([30, 0, 1, 1, 0, 0, 0], np.intc), num_steps=4)
        return start, lab_corridor.observations()

    a, b, c = play(7), play(7), play(8)
    for name in OBS:
        np.testing.assert_array_equal(a[0][name], b[0][name])
        np.testing.assert_array_equal(a[1][name], b[1][name])
    assert a[0]["DEBUG.POS.ROT"][1] != c[0]["DEBUG.POS.ROT"][1]
    yaws = set()
    for _ in range(3):  # seed=None draws a fresh seed each time
        lab_corridor.reset()
        yaws.add(float(lab_corridor.observations()["DEBUG.POS.ROT"][1]))
    assert len(yaws) > 1
    with pytest.raises(ValueError, match="seed"):
        lab_corridor.reset(seed=1.5)


def test_episode_selects_bank_level_in_order(lab_maps):
    lab = jaxlab.Lab(lab_maps["left"], ["DEBUG.POS.TRANS"], dict(SMALL))
    # White box: a two-level bank behind the Lab (make() builds one-level banks from a single map).
    lab._bank = Bank.stack([build_level(read_map_file(lab_maps[side]), 60.0) for side in ("left", "right")])
    lab._num_levels = 2

    def spawn_x(**kwargs):
        lab.reset(**kwargs)
        return lab.observations()["DEBUG.POS.TRANS"][0]

    assert spawn_x(seed=0) == 150.0          # episode 0 -> level 0
    assert spawn_x(seed=0) == 550.0          # episode 1 -> level 1
    assert spawn_x(episode=4, seed=0) == 150.0
    assert spawn_x(seed=0) == 550.0          # continues in order from 4: episode 5
    assert spawn_x(episode=7) == 550.0
    assert spawn_x(episode=0) == 150.0
    assert math.isclose(spawn_x(), 550.0)
