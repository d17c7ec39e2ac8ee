"""jaxlab.settings: one conversion of setting values (Lab2D/Lua rules) for every host."""
import numpy as np
import pytest

from jaxlab.hosts.dmlab import parse_config
from jaxlab.hosts.lab2d_properties import PropertyInvalidArgumentError, PropertyResult, write_property
from jaxlab.levels.lab2d import clean_up
from jaxlab.settings import SettingError, convert_setting, lua_tonumber, positive_setting


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
    (0.1, "abc", "a number"), (0.1, "nan", "a number"), (0.1, False, "a number"),
    ("BOUNDED", 5, "a string"),
    ((0.0, 0.5), "0.1,0.2", "a sequence"), ((0.0, 0.5), 0.1, "a sequence"),
])
def test_values_that_do_not_fit_raise_setting_error(default, value, expected):
    with pytest.raises(SettingError, match=f"setting 'numBoxes': expected {expected}") as info:
        convert_setting("numBoxes", default, value)
    assert isinstance(info.value, ValueError)
    assert info.value.name == "numBoxes" and info.value.value == value and info.value.expected.startswith(expected)


def test_sequence_elements_are_named_by_their_1_based_index():
    with pytest.raises(SettingError, match=r"'regrowth\.2': expected a number, got 'x'"):
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
    with pytest.raises(SettingError, match="expected an integer"):
        positive_setting("width", 1, "16.5")


# -- the hosts use it -----------------------------------------------------------------------------

def test_grid_levels_convert_their_settings():
    assert len(clean_up.build({"numPlayers": "0x3"}).players) == 3
    with pytest.raises(SettingError, match="'numPlayers': expected an integer"):
        clean_up.build({"numPlayers": "3.5"})


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
