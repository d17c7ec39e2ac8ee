"""jaxlab.settings: one conversion of setting values (Lab2D/Lua rules) for every host, the typed checks
of host values and jaxlab.make's settings."""
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.hosts.dmlab import parse_config
from jaxlab.levels import lab2d
from jaxlab.levels.lab2d import clean_up
from jaxlab.levels.lab2d.checks import RANGES
from jaxlab.levels.lab2d.properties import PropertyInvalidArgumentError, PropertyResult, write_property
from jaxlab.settings import (SettingError, check_settings, convert_setting, integer_value, lua_tonumber, number_value,
                             numeric_kind, positive_setting)


@pytest.mark.parametrize("text, number", [
    ("6", 6), (" 6 ", 6), ("+6", 6), ("-6", -6), ("0x10", 16), ("-0X1f", -31), ("1e2", 100.0),
    (".5", 0.5), ("5.", 5.0), ("0x1p-2", 0.25), ("0x.8", 0.5), ("1.5E-1", 0.15),
])
def test_lua_tonumber_reads_what_lua_reads(text, number):
    value = lua_tonumber(text)
    assert value == number and type(value) is type(number)


@pytest.mark.parametrize("text", ["", " ", "abc", "inf", "nan", "1_000", "0x", "1e", "--1", "1 2", "true"])
def test_lua_tonumber_refuses_what_lua_refuses(text):
    assert lua_tonumber(text) is None


def test_lua_tonumber_takes_only_strings():
    assert lua_tonumber(6) is None


@pytest.mark.parametrize("default, value, expected", [
    (False, "true", True), (True, "false", False), (False, True, True), (True, np.bool_(False), False),
    (4, " 6 ", 6), (4, "0x10", 16), (4, "1e2", 100), (4, 7, 7), (4, 5.0, 5), (4, np.int64(3), 3),
    (0.1, "0.25", 0.25), (0.1, 3, 3.0), (0.1, "2", 2.0), (0.1, "0x1p-2", 0.25),
    ("BOUNDED", "TORUS", "TORUS"), ("BOUNDED", " 1 ", " 1 "),
    ((0.0, 0.5), ["1", 2], (1.0, 2.0)), ((0.0, 0.5), ("0.1", "0.2", 3), (0.1, 0.2, 3.0)),
    ([1, 2], ("3",), [3]), ((), ("a", 1), ("a", 1)),
])
def test_values_convert_to_the_type_of_the_default(default, value, expected):
    converted = convert_setting("s", default, value)
    assert converted == expected and type(converted) is type(expected)
    if isinstance(expected, (tuple, list)):
        assert [type(v) for v in converted] == [type(v) for v in expected]


@pytest.mark.parametrize("default, value, expected", [
    (False, "yes", "'true' or 'false'"), (False, "1", "'true' or 'false'"), (False, 1, "'true' or 'false'"),
    (False, "True", "'true' or 'false'"),
    (4, "5.5", "an integer"), (4, 5.5, "an integer"), (4, "many", "an integer"), (4, "inf", "an integer"),
    (4, True, "an integer"), (4, None, "an integer"), (4, "1_000", "an integer"),
    (0.1, "abc", "a finite number"), (0.1, "nan", "a finite number"), (0.1, False, "a finite number"),
    (0.1, float("nan"), "a finite number"), (0.1, float("inf"), "a finite number"),
    (0.1, np.float32("-inf"), "a finite number"), (0.1, "1e999", "a finite number"),
    (0.1, 10 ** 400, "a finite number"), (4, float("inf"), "an integer"), (4, np.float64("nan"), "an integer"),
    (4, "3" * 5000, "an integer"), (4, "-1e999", "an integer"),
    ("BOUNDED", 5, "a string"),
    ((0.0, 0.5), "0.1,0.2", "a sequence"), ((0.0, 0.5), 0.1, "a sequence"),
])
def test_values_that_do_not_fit_raise_setting_error(default, value, expected):
    with pytest.raises(SettingError, match=f"setting 'numBoxes': expected {expected}") as info:
        convert_setting("numBoxes", default, value)
    assert isinstance(info.value, ValueError)
    assert info.value.name == "numBoxes" and info.value.value is value and info.value.expected.startswith(expected)


def test_sequence_elements_are_named_by_their_1_based_index():
    with pytest.raises(SettingError, match=r"'regrowth\.2': expected a finite number, got 'x'"):
        convert_setting("regrowth", (0.0, 0.5), ("0.1", "x"))


def test_defaults_of_other_types_have_no_conversion():
    with pytest.raises(TypeError, match="gridShape.*dict"):
        convert_setting("gridShape", {"width": 10}, "3")


def test_positive_setting():
    assert positive_setting("width", 1, "0x20") == 32
    assert positive_setting("seconds", 0.0, "0.5") == 0.5
    for default, value in ((1, "0"), (1, -3), (0.0, "-0.5"), (0.0, 0)):
        with pytest.raises(SettingError, match="expected a positive"):
            positive_setting("width", default, value)
    with pytest.raises(SettingError, match=r"expected a positive integer in \[1, 4096\], got '16.5' \(str\)"):
        positive_setting("width", 1, "16.5")


@pytest.mark.parametrize("name, default, value, expected", [
    ("width", 1, "4097", r"\[1, 4096\]"), ("height", 1, 10 ** 6, r"\[1, 4096\]"), ("fps", 1, "1001", r"\[1, 1000\]"),
    ("action_repeat", 1, 10 ** 9, r"\[1, 100000\]"), ("episode_length_seconds", 0.0, float("inf"), r"\(0, 86400\]"),
    ("episode_length_seconds", 0.0, float("nan"), r"\(0, 86400\]"),
    ("episodeLengthSeconds", 0.0, "1e6", r"\(0, 86400\]"),
    ("numBoxes", 1, "1e400", "integer, got '1e400'"),
])
def test_positive_setting_is_finite_and_bounded(name, default, value, expected):
    with pytest.raises(SettingError, match=rf"Host.call: setting '{name}': expected a positive .*{expected}"):
        positive_setting(name, default, value, "Host.call")
    assert positive_setting(name, default, "1") == 1


# -- the hosts use it -----------------------------------------------------------------------------

def test_grid_levels_convert_their_settings():
    assert len(clean_up.build({"numPlayers": "0x3"}).players) == 3
    with pytest.raises(SettingError, match="'numPlayers': expected an integer"):
        clean_up.build({"numPlayers": "3.5"})


def numeric_settings(defaults, prefix=""):
    """(dotted name, default) of every numeric setting (numbers and sequences of numbers) in ``defaults``."""
    for name, value in defaults.items():
        if isinstance(value, dict):
            yield from numeric_settings(value, f"{prefix}{name}.")
        elif isinstance(value, (int, float, tuple)) and not isinstance(value, bool):
            yield prefix + name, value


GRID_SETTINGS = [(level, name, default) for level, module in lab2d.MODULES.items()
                 for name, default in numeric_settings(module.DEFAULT_SETTINGS)]


@pytest.mark.parametrize("level, name, default", GRID_SETTINGS, ids=[f"{lv}.{n}" for lv, n, _ in GRID_SETTINGS])
def test_every_numeric_grid_setting_is_finite_and_in_its_range(level, name, default):
    """merge_settings checks every one against RANGES, whichever host passes it (make, Lab2d, write_property)."""
    rule = RANGES[name]
    integral = isinstance(default[0] if isinstance(default, tuple) else default, int)
    step = 1 if integral else 1e-3 * max(1.0, abs(rule.high))
    below = rule.low if rule.low_open else rule.low - step
    for bad in (below, rule.high + step, float("nan"), float("inf"), -float("inf"), str(rule.high + step)):
        value = (bad,) * len(default) if isinstance(default, tuple) else bad
        expected = rf"^{level}: setting '{name}(\.1)?': expected an? (integer|number) in [\[(]"
        with pytest.raises(SettingError, match=expected):
            lab2d.build(level, {name: value})
    assert lab2d.build(level, {name: default}).settings == lab2d.build(level).settings


def test_lab2d_properties_report_setting_errors_as_invalid_argument():
    settings = {"numBoxes": 4}
    with pytest.raises(PropertyInvalidArgumentError, match="invalid argument.*'settings.numBoxes'") as info:
        write_property(settings, "settings.numBoxes", "5.5")
    assert info.value.result == PropertyResult.INVALID_ARGUMENT and settings == {"numBoxes": 4}


def test_dmlab_config_reads_numbers_as_lua_does():
    config = parse_config({"width": "0x20", "height": " 24 ", "fps": "30", "episodeLengthSeconds": "1e1"})
    assert (config["width"], config["height"], config["fps"], config["episode_length_seconds"]) == (32, 24, 30, 10.0)
    for bad in ({"width": "16.5"}, {"height": "0"}, {"fps": "abc"}, {"episode_length_seconds": "-1"}):
        with pytest.raises(SettingError, match=repr(next(iter(bad)))):
            parse_config(bad)


# -- typed values ---------------------------------------------------------------------------------

@pytest.mark.parametrize("value, kind", [
    (3, "i"), (np.int8(3), "i"), (np.uint64(3), "i"), (np.array(3), "i"), (jnp.int32(3), "i"),
    (3.5, "f"), (np.float32(3.5), "f"), (np.array(3.5), "f"), (jnp.float32(3.5), "f"),
    (True, ""), (np.bool_(True), ""), (np.array(True), ""), ("3", ""), (None, ""), (1j, ""), ([3], ""),
    (np.array([3]), ""), (np.array("3"), ""),
])
def test_numeric_kind(value, kind):
    assert numeric_kind(value) == kind


def test_integer_and_number_values():
    assert integer_value("f", "x", np.int64(4), 0, 4) == 4 and type(integer_value("f", "x", np.int64(4), 0, 4)) is int
    assert number_value("f", "x", 1, -1.0, 1.0) == 1.0 and number_value("f", "x", np.float32(-0.5), -1, 1) == -0.5
    with pytest.raises(TypeError, match=r"^f: action 'x': expected an integer in \[0, 4\], got 1.0 \(float\)$"):
        integer_value("f", "action 'x'", 1.0, 0, 4)
    with pytest.raises(ValueError, match=r"^f: x: expected a number in \(0, 1\], got 0 \(int\)$"):
        number_value("f", "x", 0, 0.0, 1.0, low_open=True)
    with pytest.raises(ValueError, match=r"expected a number in \[-1, 1\], got 1000"):
        number_value("f", "x", 10 ** 400, -1.0, 1.0)


# -- jaxlab.make's settings -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def corridor(tmp_path_factory):
    path = tmp_path_factory.mktemp("settings") / "corridor.txt"
    path.write_text("*******\n*P   G*\n*******\n")
    return str(path)


BAD_MAKE_SETTINGS = [
    ("width", "32", TypeError, r"\[1, 4096\], got '32' \(str\)"), ("width", 1.7, TypeError, r"got 1.7 \(float\)"),
    ("width", 32.0, TypeError, r"\[1, 4096\]"), ("width", True, TypeError, r"got True \(bool\)"),
    ("width", None, TypeError, r"got None"), ("width", [32], TypeError, r"\(list\)"),
    ("width", np.float64(32), TypeError, r"\(float64\)"), ("width", np.array([32]), TypeError, r"shape \(1,\)"),
    ("width", 0, ValueError, r"\[1, 4096\], got 0"), ("width", 10 ** 6, ValueError, r"\[1, 4096\]"),
    ("height", -24, ValueError, r"\[1, 4096\]"), ("height", np.int64(5000), ValueError, r"got 5000 \(int64\)"),
    ("action_repeat", 0, ValueError, r"\[1, 100000\]"), ("action_repeat", 1.5, TypeError, r"\[1, 100000\]"),
    ("action_repeat", "4", TypeError, r"\[1, 100000\]"), ("fps", 10 ** 4, ValueError, r"\[1, 1000\]"),
    ("fps", "60", TypeError, r"\[1, 1000\]"),
    ("episode_length_seconds", float("inf"), ValueError, r"\(0, 86400\], got inf"),
    ("episode_length_seconds", float("nan"), ValueError, r"\(0, 86400\], got nan"),
    ("episode_length_seconds", 0, ValueError, r"\(0, 86400\]"), ("episode_length_seconds", -1.0, ValueError, "-1.0"),
    ("episode_length_seconds", 1e9, ValueError, r"\(0, 86400\]"), ("episode_length_seconds", "10", TypeError, "'10'"),
    ("episode_length_seconds", True, TypeError, r"\(bool\)"),
    ("observations", 5, TypeError, "a list of names"),
    ("observations", [b"RGB_INTERLEAVED"], TypeError, "a list of names"),
    ("observations", ("RGB", "RGB"), ValueError, "each once \\('RGB' is listed twice\\)"),
    ("seed", -1, ValueError, r"\[0, 9223372036854775807\]"), ("seed", 1.5, TypeError, "integer"),
    ("seed", "0", TypeError, "integer"), ("seed", 2 ** 64, ValueError, "integer"),
    ("episodes", 0, ValueError, r"\[1, 1000000\]"), ("num_games", 0, ValueError, r"\[1, 1000000\]"),
    ("num_games", 2.0, TypeError, r"\[1, 1000000\]"), ("max_steps", 0, ValueError, r"\[1, 2147483647\]"),
    ("max_steps", 1.5, TypeError, "integer"), ("text_length", 10 ** 6, ValueError, r"\[1, 65536\]"),
    ("layouts", -1, ValueError, r"a Bank of layouts\): expected an integer in \[0, 1000000\]"),
    ("layouts", 1.5, TypeError, "layouts"), ("level_settings", [("a", 1)], TypeError, "a dict"),
    ("levels_dir", 5, TypeError, "a folder path"),
]


@pytest.mark.parametrize("name, value, error, expected", BAD_MAKE_SETTINGS,
                         ids=[f"{n}={v!r}"[:40] for n, v, _, _ in BAD_MAKE_SETTINGS])
def test_make_refuses_bad_typed_settings(corridor, name, value, error, expected):
    """Checked before anything is built, whatever the level: one error naming jaxlab.make, the setting
    and its range."""
    for level in (corridor, "nav_maze_static_01", "tw-coin_collector", "pushbox"):
        with pytest.raises(error, match=rf"^jaxlab.make: setting '{name}'.*{expected}"):
            jaxlab.make(level, **{name: value})


def test_make_takes_numpy_integers_and_numbers(corridor):
    env = jaxlab.make(corridor, width=np.int64(32), height=np.array(24, np.int32), action_repeat=np.uint8(2),
                      fps=jnp.int32(30), episode_length_seconds=np.float32(1.5), observations="RGB_INTERLEAVED")
    assert (env.width, env.height, env.action_repeat, env.fps) == (32, 24, 2, 30)
    assert all(type(v) is int for v in (env.width, env.height, env.action_repeat, env.fps))
    assert env.observations == ("RGB_INTERLEAVED",)
    assert env.observation_spec()["RGB_INTERLEAVED"].shape == (24, 32, 3)
    assert int(env.episode_frames(env.bank.get(0))) == 45


def test_make_reads_none_as_the_default(corridor):
    env = jaxlab.make(corridor, width=32, height=24, observations=None, episode_length_seconds=None)
    default = jaxlab.make(corridor, width=32, height=24)
    assert env.observations == default.observations
    assert int(env.episode_frames(env.bank.get(0))) == int(default.episode_frames(default.bank.get(0)))


def test_text_envs_check_their_counts_as_make_does():
    """jaxlab.text.make_env once ended in 'cannot convert float NaN to integer', TextEnv (jaxlab.text.start)
    in int()'s errors: both check seed, num_games, max_steps and text_length as jaxlab.make does."""
    for name, value, error in (("num_games", float("nan"), TypeError), ("num_games", 0, ValueError),
                               ("seed", -1, ValueError), ("max_steps", "5", TypeError)):
        with pytest.raises(error, match=rf"^jaxlab.text.make_env: setting '{name}': expected an integer in \["):
            jaxlab.text.make_env("tw-coin_collector", **{name: value})
    game = jaxlab.text.make("tw-coin_collector", 0, level=1)
    for value, error in ((float("nan"), TypeError), (float("inf"), TypeError), (2 ** 31, ValueError), (0, ValueError),
                         (True, TypeError)):
        with pytest.raises(error, match=r"^TextEnv: setting 'max_steps': expected an integer in \[1, 2147483647\]"):
            jaxlab.text.start(game, max_steps=value)
    with pytest.raises(ValueError, match=r"^TextEnv: setting 'text_length': expected an integer in \[1, 65536\]"):
        jaxlab.text.TextEnv(jaxlab.Bank.stack([game.game]), [game.info], text_length=10 ** 6)


def test_check_settings_passes_other_settings_through():
    settings = {"numBoxes": "3", "width": np.int16(8), "observations": ["WORLD.RGB"], "max_steps": None}
    checked = check_settings("here", settings)
    assert checked == {"numBoxes": "3", "width": 8, "observations": ("WORLD.RGB",)}
    assert type(checked["width"]) is int
