"""Every host refuses bad actions and settings with one TypeError or ValueError that names the call,
the action or setting and its range, and steps nothing: ``Lab`` (DMLab), ``Lab2d`` (Lab2D) and the
memory-task host (dm_memorytasks). ``jaxlab.make``'s settings: tests/core/test_settings.py."""
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
import jaxlab.memorytasks as dm_memorytasks
from jaxlab.errors import UnknownNameError
from jaxlab.grid import Lab2d
from jaxlab.levels.lab2d.properties import PropertyInvalidArgumentError
from jaxlab.settings import SettingError
from refusals import case, leaves, refused

CORRIDOR = "*******\n*P   G*\n*******\n"
MEMORY_LEVEL = "invisible_goal_empty_arena_train"
NAN, INF = float("nan"), float("inf")


def assert_same(before, after):
    assert len(before) == len(after)
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)


# -- Lab2d (Lab2D) ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def grid():
    env = Lab2d("jaxlab_predator_prey", ["WORLD.TEXT"], seed=1)
    env.reset()
    return env


BAD_GRID_ACTIONS = [
    case({"1.move": 1.7}, TypeError, "'1.move'", "[0, 4]", "1.7 (float)"),
    case({"1.move": np.float32(1.0)}, TypeError, "'1.move'", "[0, 4]", "(float32)"),
    case({"1.move": "1"}, TypeError, "'1.move'", "[0, 4]", "'1' (str)"),
    case({"1.move": True}, TypeError, "'1.move'", "(bool)"),
    case({"1.move": np.bool_(True)}, TypeError, "'1.move'", "(bool"),
    case({"1.move": None}, TypeError, "'1.move'", "(NoneType)"),
    case({"1.move": NAN}, TypeError, "'1.move'", "nan"),
    case({"1.move": INF}, TypeError, "'1.move'", "inf"),
    case({"1.move": [1]}, TypeError, "'1.move'", "(list)"),
    case({"1.move": np.array([1, 2])}, TypeError, "'1.move'", "shape (2,)"),
    case({"1.move": 2 ** 40}, ValueError, "'1.move'", "[0, 4]", str(2 ** 40)),
    case({"1.move": 5}, ValueError, "'1.move'", "[0, 4]", "5 (int)"),
    case({"1.move": np.int64(-1)}, ValueError, "'1.move'", "[0, 4]", "-1 (int64)"),
    case({"1.turn": 2}, ValueError, "'1.turn'", "[-1, 1]"),
    case({"1.move": 1, "1.turn": -2}, ValueError, "'1.turn'", "[-1, 1]"),   # a good entry is not applied either
    case(None, TypeError, "action", "a dict", "1.move"),
    case([1, 0], TypeError, "action", "a dict", "(list)"),
    case(np.array([1]), TypeError, "action", "a dict", "(ndarray"),
]


@pytest.mark.parametrize("action, error, fragments", BAD_GRID_ACTIONS)
def test_lab2d_refuses_bad_actions_and_steps_nothing(grid, action, error, fragments):
    before = leaves(grid._state)
    refused(lambda: grid.step(action), error, "Lab2d.step: ", *fragments)
    assert_same(before, leaves(grid._state))


@pytest.mark.parametrize("action, fragment", [({"1.mvoe": 1}, "unknown action '1.mvoe'. Did you mean '1.move'"),
                                              ({"1.move": 1, "move": 1}, "unknown action 'move'. Did you mean"),
                                              ({1: 1}, "unknown action 1.")])
def test_lab2d_unknown_action_names_get_suggestions(grid, action, fragment):
    before = leaves(grid._state)
    error = refused(lambda: grid.step(action), UnknownNameError, "Lab2d.step: " + fragment)
    assert isinstance(error, KeyError) and isinstance(error, ValueError)
    assert_same(before, leaves(grid._state))


@pytest.mark.parametrize("action", [{"1.move": np.int64(2)}, {"1.move": np.array(2, np.int32)},
                                    {"1.move": jnp.int32(1), "2.turn": np.uint8(1)}, {"5.turn": -1}, {}])
def test_lab2d_integer_kinds_step(grid, action):
    before = leaves(grid._state)
    ts = grid.step(action)
    assert ts.step_type.mid() or ts.step_type.last()
    assert any(not np.array_equal(a, b) for a, b in zip(before, leaves(grid._state)))


@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"observations": "WORLD.TEXT"}, TypeError, "observations"),
    ({"observations": ["WORLD.TEXT", 3]}, TypeError, "observations"),
    ({"observations": ["WORLD.RGB", "WORLD.RGB"]}, ValueError, "'WORLD.RGB' is listed twice"),
    ({"settings": [("numPlayers", 2)]}, TypeError, "settings"),
    ({"seed": 1.5}, TypeError, "seed"),
    ({"seed": "1"}, TypeError, "seed"),
    ({"seed": -1}, ValueError, "seed"),
    ({"seed": 2 ** 64}, ValueError, "seed"),
])
def test_lab2d_refuses_bad_constructor_arguments(kwargs, error, fragment):
    refused(lambda: Lab2d("jaxlab_predator_prey", **kwargs), error, "Lab2d: ", fragment)


# -- Lab2d's settings: checked alike by the constructor, jaxlab.make and write_property -------------

@pytest.fixture(scope="module")
def pushbox():
    return Lab2d("pushbox", ["WORLD.TEXT"])


@pytest.mark.parametrize("value, text", [(NAN, "nan"), (INF, "inf"), (-INF, "-inf"), (np.float32(NAN), "nan"),
                                         (1e300, "1e300"), (float("1e999"), "1e999"), (-2e6, "-0x1p21")])
def test_a_setting_is_refused_alike_at_construction_make_and_write_property(pushbox, value, text):
    """Once accepted by Lab2d and make (every reward NaN or -inf) while write_property refused it."""
    for make in (lambda: Lab2d("pushbox", settings={"stepCost": value}),
                 lambda: jaxlab.make("pushbox", stepCost=value, layouts=0),
                 lambda: Lab2d("pushbox", settings={"stepCost": text})):
        refused(make, SettingError, "pushbox: setting 'stepCost': expected a number in [-1e+06, 1e+06], got ")
    refused(lambda: pushbox.write_property("settings.stepCost", text), PropertyInvalidArgumentError,
            "invalid argument", "'settings.stepCost'")
    assert pushbox.read_property("settings.stepCost") == "0.1"


def test_values_in_range_are_taken_alike(pushbox):
    assert Lab2d("pushbox", settings={"stepCost": 1e6}).read_property("settings.stepCost") == "1000000"
    assert jaxlab.make("pushbox", stepCost="-1e6", layouts=0).spec.step_cost == -1e6
    pushbox.write_property("settings.stepCost", "0x10")
    assert pushbox.read_property("settings.stepCost") == "16"
    pushbox.write_property("settings.stepCost", "0.1")


@pytest.mark.parametrize("value", ["abc", 5, None, [("width", 5)]])
def test_a_nested_setting_must_be_a_dict(value):
    """``gridShape='abc'`` once ended in 'dictionary update sequence element #0 has length 1'."""
    refused(lambda: Lab2d("pushbox", settings={"gridShape": value}), SettingError,
            "pushbox: setting 'gridShape': expected a dict of its settings (like {'width': 10, 'height': 10}), got ")


def test_nested_settings_by_dotted_names():
    env = Lab2d("pushbox", settings={"gridShape.width": "7", "gridShape": {"height": 6}})
    assert (env.read_property("settings.gridShape.width"), env.read_property("settings.gridShape.height")) == ("7", "6")
    refused(lambda: Lab2d("pushbox", settings={"gridShape.depth": 3}), UnknownNameError,
            "'gridShape.depth'", "Did you mean 'gridShape.width', 'gridShape.height'")
    refused(lambda: Lab2d("pushbox", settings={"gridShape.width": 3000}), SettingError,
            "'gridShape.width': expected an integer in [3, 256]")


def test_a_huge_numeral_names_the_property(pushbox):
    """Once Python's digit-limit error, naming no property."""
    for text in ("3" * 5000, "-" + "9" * 400, "99999999999999999999"):
        refused(lambda: pushbox.write_property("settings.numBoxes", text), PropertyInvalidArgumentError,
                "invalid argument", "'settings.numBoxes'", "expected an integer")
    refused(lambda: Lab2d("pushbox", settings={"numBoxes": 10 ** 5000}), SettingError,
            "'numBoxes': expected an integer in [1, 65536], got <5001 digits> (int)")
    assert pushbox.read_property("settings.numBoxes") == "4"


@pytest.mark.parametrize("key", [None, 5, b"settings.numBoxes", ["settings", "numBoxes"]])
def test_property_keys_must_be_strings(pushbox, key):
    """``read_property(None)`` once said 'permission denied'."""
    for name, call in (("read_property", lambda: pushbox.read_property(key)),
                       ("write_property", lambda: pushbox.write_property(key, "3")),
                       ("list_property", lambda: pushbox.list_property(key))):
        refused(call, TypeError, f"{name}: key: expected a property key (a str such as 'settings.numBoxes'), got ")


def test_a_written_value_the_level_refuses_changes_nothing(pushbox):
    refused(lambda: pushbox.write_property("settings.topology", "KLEIN"), PropertyInvalidArgumentError,
            "'settings.topology'", "'bounded' or 'torus'")
    refused(lambda: pushbox.write_property("settings.numBoxes", "70"), PropertyInvalidArgumentError,
            "'settings.numBoxes'", "cannot hold 70 boxes")
    refused(lambda: pushbox.write_property("settings.numBoxes", 3), TypeError, "'settings.numBoxes'", "a string")
    assert (pushbox.read_property("settings.topology"), pushbox.read_property("settings.numBoxes")) == ("BOUNDED", "4")


# -- Lab (DeepMind Lab) ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corridor(tmp_path_factory):
    path = tmp_path_factory.mktemp("checks") / "corridor.txt"
    path.write_text(CORRIDOR)
    return str(path)


@pytest.fixture(scope="module")
def lab(corridor):
    lab = jaxlab.Lab(corridor, ["DEBUG.POS.TRANS"], {"width": "32", "height": "24"})
    lab.reset(seed=0)
    return lab


def _dmlab_action(**elements):
    action = np.zeros(7, np.intc)
    for index, value in elements.items():
        action[int(index[1:])] = value
    return action


BAD_LAB_ACTIONS = [
    case([0, 0, 0, 1, 0, 0, 0], ValueError, "dtype int32 and shape (7,)", "(list)"),
    case(None, ValueError, "dtype int32 and shape (7,)", "(NoneType)"),
    case(np.zeros(7, np.float64), ValueError, "dtype int32", "dtype float64"),
    case(np.zeros(7, np.int64), ValueError, "dtype int32", "dtype int64"),
    case(np.zeros(6, np.intc), ValueError, "shape (7,)", "shape (6,)"),
    case(np.zeros((1, 7), np.intc), ValueError, "shape (7,)", "shape (1, 7)"),
    case(np.intc(0), ValueError, "shape (7,)", "(int32)"),
    case(_dmlab_action(e0=513), ValueError, "'LOOK_LEFT_RIGHT_PIXELS_PER_FRAME' (element 0)", "[-512, 512]", "513"),
    case(_dmlab_action(e1=-600), ValueError, "'LOOK_DOWN_UP_PIXELS_PER_FRAME' (element 1)", "[-512, 512]", "-600"),
    case(_dmlab_action(e2=-2), ValueError, "'STRAFE_LEFT_RIGHT'", "[-1, 1]"),
    case(_dmlab_action(e3=1, e6=2), ValueError, "'CROUCH' (element 6)", "[0, 1]"),   # the forward move is not applied
    case(_dmlab_action(e4=-1), ValueError, "'FIRE'", "[0, 1]"),
    case(_dmlab_action(e5=2 ** 31 - 1), ValueError, "'JUMP'", "[0, 1]", str(2 ** 31 - 1)),
]


@pytest.mark.parametrize("action, error, fragments", BAD_LAB_ACTIONS)
def test_lab_refuses_bad_actions_with_value_error_as_dmlab_and_steps_nothing(lab, action, error, fragments):
    before, frames = leaves(lab._state), lab.num_steps()
    refused(lambda: lab.step(action), error, "Lab.step: action", *fragments)
    assert_same(before, leaves(lab._state))
    assert lab.num_steps() == frames and lab.is_running()


@pytest.mark.parametrize("num_steps, error", [(1.5, TypeError), (np.float64(2), TypeError), (True, TypeError),
                                              ("4", TypeError), (None, TypeError), (0, ValueError),
                                              (-1, ValueError), (10 ** 6, ValueError), (2 ** 40, ValueError)])
def test_lab_refuses_bad_num_steps(lab, num_steps, error):
    before, frames = leaves(lab._state), lab.num_steps()
    refused(lambda: lab.step(np.zeros(7, np.intc), num_steps=num_steps), error, "Lab.step: num_steps",
            "[1, 100000]")
    assert_same(before, leaves(lab._state))
    assert lab.num_steps() == frames


def test_lab_steps_after_refusals(lab):
    frames, before = lab.num_steps(), leaves(lab._state)
    assert lab.step(_dmlab_action(e0=512, e3=1), num_steps=np.int64(2)) == 0.0
    assert lab.num_steps() == frames + 2
    assert any(not np.array_equal(a, b) for a, b in zip(before, leaves(lab._state)))


@pytest.mark.parametrize("kwargs, error", [({"episode": 1.5}, TypeError), ({"episode": "0"}, TypeError),
                                           ({"episode": 2 ** 31}, ValueError), ({"seed": 1.5}, ValueError),
                                           ({"seed": "1"}, ValueError), ({"seed": True}, ValueError)])
def test_lab_reset_refuses_bad_arguments(lab, kwargs, error):
    refused(lambda: lab.reset(**kwargs), error, next(iter(kwargs)))
    assert lab.is_running()


@pytest.mark.parametrize("config, error, fragments", [
    case({"width": 32}, TypeError, "Lab: config", "'width'", "strings"),
    case({"width": "abc"}, SettingError, "Lab: config", "'width'", "[1, 4096]"),
    case({"width": "32.5"}, SettingError, "'width'", "[1, 4096]"),
    case({"width": "100000"}, SettingError, "'width'", "[1, 4096]"),
    case({"height": "0"}, SettingError, "'height'", "[1, 4096]"),
    case({"height": "nan"}, SettingError, "'height'"),
    case({"fps": "1e9"}, SettingError, "'fps'", "[1, 1000]"),
    case({"episodeLengthSeconds": "inf"}, SettingError, "'episodeLengthSeconds'", "(0, 86400]"),
    case({"episode_length_seconds": "1e6"}, SettingError, "'episode_length_seconds'", "(0, 86400]"),
    case([("width", "32")], TypeError, "Lab: config", "a dict"),
])
def test_lab_refuses_bad_config(corridor, config, error, fragments):
    refused(lambda: jaxlab.Lab(corridor, [], config), error, *fragments)


@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"observations": "DEBUG.POS.TRANS"}, TypeError, "Lab: observations"),
    ({"observations": [b"DEBUG.POS.TRANS"]}, TypeError, "Lab: observations"),
    ({"observations": None}, TypeError, "Lab: observations"),
    ({"observations": ("RGB", "RGB")}, ValueError,
     "Lab: observations: expected a list of names (str), each once ('RGB' is listed twice)"),
    ({"episodes": 0}, ValueError, "Lab: episodes"),
    ({"episodes": 1.5}, TypeError, "Lab: episodes"),
])
def test_lab_refuses_bad_constructor_arguments(corridor, kwargs, error, fragment):
    kwargs = {"observations": [], **kwargs}
    refused(lambda: jaxlab.Lab(corridor, **kwargs), error, fragment)


def test_lab_reads_dmlab_string_config(corridor):
    lab = jaxlab.Lab(corridor, ["RGB_INTERLEAVED"], {"width": " 0x20 ", "height": "24", "fps": "30",
                                                     "episodeLengthSeconds": "1e1"})
    shapes = {spec["name"]: spec["shape"] for spec in lab.observation_spec()}
    assert shapes["RGB_INTERLEAVED"] == (24, 32, 3) and lab.fps() == 30


# -- the memory-task host (dm_memorytasks) ---------------------------------------------------------

@pytest.fixture(scope="module")
def memory():
    env = dm_memorytasks.load(dm_memorytasks.EnvironmentSettings(seed=0, level_name=MEMORY_LEVEL, width=32,
                                                                 height=24))
    env.reset()
    return env


BAD_MEMORY_ACTIONS = [
    case({"MOVE_BACK_FORWARD": 1.5}, ValueError, "[-1, 1]", "1.5 (float)"),
    case({"MOVE_BACK_FORWARD": -1.0001}, ValueError, "[-1, 1]"),
    case({"MOVE_BACK_FORWARD": NAN}, ValueError, "[-1, 1]", "nan"),
    case({"MOVE_BACK_FORWARD": -INF}, ValueError, "[-1, 1]", "-inf"),
    case({"MOVE_BACK_FORWARD": 2 ** 40}, ValueError, "[-1, 1]"),
    case({"MOVE_BACK_FORWARD": np.float32(NAN)}, ValueError, "(float32)"),
    case({"MOVE_BACK_FORWARD": True}, TypeError, "(bool)"),
    case({"MOVE_BACK_FORWARD": "1"}, TypeError, "'1' (str)"),
    case({"MOVE_BACK_FORWARD": None}, TypeError, "(NoneType)"),
    case({"MOVE_BACK_FORWARD": [1.0]}, TypeError, "(list)"),
    case({"MOVE_BACK_FORWARD": np.array([0.5])}, TypeError, "shape (1,)"),
    case({"MOVE_BACK_FORWARD": 1j}, TypeError, "(complex)"),
    case({"STRAFE_LEFT_RIGHT": -1.0, "MOVE_BACK_FORWARD": 2.0}, ValueError, "[-1, 1]"),  # the strafe is not held
]


@pytest.mark.parametrize("action, error, fragments", BAD_MEMORY_ACTIONS)
def test_memory_host_refuses_bad_actions_and_steps_nothing(memory, action, error, fragments):
    before = leaves(memory.state)
    refused(lambda: memory.step(action), error, "MemoryTasksEnvironment.step: action 'MOVE_BACK_FORWARD'",
            *fragments)
    assert_same(before, leaves(memory.state))


@pytest.mark.parametrize("action, error, fragment", [
    (None, TypeError, "a dict of action names"), ([0.5, 0, 0, 0], TypeError, "(list)"),
    (np.zeros(4), TypeError, "(ndarray"), ({"MOVE_FORWARD": 1.0}, UnknownNameError, "Did you mean 'MOVE_BACK_FORWARD'"),
])
def test_memory_host_refuses_bad_containers_and_names(memory, action, error, fragment):
    before = leaves(memory.state)
    refused(lambda: memory.step(action), error, "MemoryTasksEnvironment.step: ", fragment)
    assert_same(before, leaves(memory.state))


def test_memory_host_steps_numbers_of_every_kind(memory):
    memory.step({"STRAFE_LEFT_RIGHT": np.float32(-0.5), "MOVE_BACK_FORWARD": 1, "LOOK_LEFT_RIGHT": np.array(0.25),
                 "LOOK_DOWN_UP": jnp.float32(0.0)})
    np.testing.assert_array_equal(np.asarray(memory.state.held), [-0.5, 1.0, 0.25, 0.0])


@pytest.mark.parametrize("fields, error, fragment", [
    ({"width": "32", "height": 24}, TypeError, "'width'"),
    ({"width": 32.0, "height": 24}, TypeError, "'width'"),
    ({"width": True, "height": 24}, TypeError, "'width'"),
    ({"width": 8192, "height": 6144}, ValueError, "[4, 4096]"),
    ({"width": 0, "height": 0}, ValueError, "'width'"),
    ({"width": 32, "height": 32}, ValueError, "4:3"),
    ({"episode_length_seconds": INF}, ValueError, "(0, 86400]"),
    ({"episode_length_seconds": NAN}, ValueError, "'episode_length_seconds'"),
    ({"episode_length_seconds": 0}, ValueError, "'episode_length_seconds'"),
    ({"episode_length_seconds": "10"}, TypeError, "'episode_length_seconds'"),
    ({"num_action_repeats": 0}, ValueError, "'num_action_repeats'"),
    ({"num_action_repeats": 1.5}, TypeError, "'num_action_repeats'"),
    ({"num_action_repeats": 10 ** 9}, ValueError, "[1, 100000]"),
    ({"seed": 1.5}, TypeError, "'seed'"),
    ({"seed": "0"}, TypeError, "'seed'"),
    ({"seed": 2 ** 64}, ValueError, "'seed'"),
    ({"level_name": None}, TypeError, "'level_name'"),
])
def test_memory_host_refuses_bad_settings(fields, error, fragment):
    settings = {"seed": 0, "level_name": MEMORY_LEVEL, **fields}
    refused(lambda: dm_memorytasks.load(settings), error, "EnvironmentSettings", fragment)


def test_memory_host_takes_numpy_integer_settings():
    settings = dm_memorytasks.EnvironmentSettings(seed=np.uint64(2 ** 64 - 1), level_name=MEMORY_LEVEL,
                                                  width=np.int64(32), height=np.int32(24),
                                                  num_action_repeats=np.int8(2), episode_length_seconds=np.float32(5))
    env = dm_memorytasks.load(settings)
    assert (env.settings.width, env.settings.height, env.settings.num_action_repeats) == (32, 24, 2)
    assert type(env.settings.width) is int and env.settings.episode_length_seconds == 5.0


def test_memory_host_refuses_calls_after_close():
    """``step({})`` after close once started a new episode silently."""
    env = dm_memorytasks.load({"seed": 0, "level_name": MEMORY_LEVEL, "width": 32, "height": 24})
    env.close()
    for method, call in (("step", lambda: env.step({})), ("reset", env.reset),
                         ("step", lambda: env.step({"MOVE_BACK_FORWARD": 1.0}))):
        refused(call, RuntimeError, f"MemoryTasksEnvironment.{method}() called after close(); load a new "
                                    "environment")
        assert env.state is None
    env.close()   # closing twice is harmless, as in DMLab


@pytest.mark.parametrize("fields", [{"width": 100, "height": 100}, {"width": 128}, {"height": 96}])
def test_memory_frame_is_4_3_through_make_and_the_host(fields):
    """jaxlab.make once took a frame the memory-task host refused: both ask registry.memory.frame_size."""
    fragments = ("settings 'width' and 'height': RGB_INTERLEAVED is 4:3: width ",)
    refused(lambda: jaxlab.make("memory/" + MEMORY_LEVEL, **fields), ValueError,
            f"memory task {MEMORY_LEVEL!r}: ", *fragments)
    refused(lambda: dm_memorytasks.load({"seed": 0, "level_name": MEMORY_LEVEL, **fields}), ValueError,
            "EnvironmentSettings: ", *fragments)
    assert jaxlab.make("memory/" + MEMORY_LEVEL, width=128, height=96).observation_spec()["RGB_INTERLEAVED"].shape \
        == (96, 128, 3)
