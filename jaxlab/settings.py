"""Setting and host values: their conversion, their limits and their checks, for every host.

Hosts pass settings as strings (DMLab's config dict, Lab2D's properties and
``init(settings)`` tables) or as Python values (``jaxlab.make(level,
**settings)``). :func:`convert_setting` turns either into the type of the
setting's default (or current) value, by Lab2D's rules, which are Lua's:

- booleans: ``'true'`` / ``'false'`` (or a Python bool); nothing else;
- numbers: as Lua's ``tonumber`` reads a string (:func:`lua_tonumber`:
  ``' 6 '``, ``0x10``, ``1e2``; not ``inf``, ``nan``, ``1_000``) or a Python
  int/float; finite only (NaN, ±inf and ``'1e999'`` are refused, whatever
  their form); an integer setting refuses a non-integer (``5.5``: Lua has one
  number type and would store it, jaxlab keeps integer settings integers);
- strings: as given;
- tuples and lists: a sequence of any length, each element converted to the
  type of the default's element at its index (past the end: the last one).

A value that does not fit raises :class:`SettingError` (a ValueError) naming
the setting and the type it expects. :func:`bounded_setting` converts and
checks a range too (:func:`positive_setting` for frame sizes, rates and
lengths); the grid levels check each of their settings with it
(``jaxlab.levels.lab2d.checks.RANGES``), whichever host passes it.

jaxlab's own Python settings (``jaxlab.make``'s width, height, seeds, ...)
are typed: :func:`check_settings` refuses strings there, with one TypeError
or ValueError per bad value. :func:`integer_value` and :func:`number_value`
are the scalar checks every host uses for its settings and actions (see
``jaxlab.hosts.checks``); their messages read ``'<where>: <what>: expected
<kind and range>, got <value> (<type>)'``. The limits (``MAX_*``) are here,
in one place.
"""
from __future__ import annotations

import collections
import math
import numbers
import os
import re
import reprlib
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from jaxlab.errors import unknown_name_error

#: the largest frame width or height a host renders, in pixels (a 4096×4096 RGB frame is 48 MiB)
MAX_FRAME_SIDE = 4096
#: the largest frame rate, in frames per second of game time (DMLab's default is 60)
MAX_FPS = 1000
#: the most frames one agent step repeats its action (``action_repeat``, ``num_steps``, ``num_action_repeats``)
MAX_ACTION_REPEAT = 100_000
#: the longest episode, in seconds of game time (one day; 5.2M frames at 60 fps)
MAX_EPISODE_SECONDS = 86_400.0
#: the most games, episodes or layouts one env compiles or generates
MAX_COUNT = 1_000_000
#: the longest text observation, in tokens
MAX_TEXT_LENGTH = 65_536
#: the range of jaxlab's own seeds (numpy's: non-negative, 63 bits)
SEED_RANGE = (0, 2 ** 63 - 1)
#: the range of int32 step counters (``max_steps``)
INT32_MAX = 2 ** 31 - 1
#: the largest reward (or cost) a level setting gives per event, in magnitude (float32 sums stay finite)
MAX_REWARD = 1e6
#: the most cells on a side of a generated grid level (4096 pixels at 16-pixel sprites)
MAX_GRID_SIDE = MAX_FRAME_SIDE // 16
#: the longest and widest beam of a grid level, in cells
MAX_BEAM_CELLS = 64
#: the largest neighbourhood radius of a grid level's regrowth, in cells (each cell in it is one shift per frame)
MAX_NEIGHBOUR_RADIUS = 8
#: the most steps a level generator's random walk takes (pushbox's ``roomSteps``)
MAX_GENERATOR_STEPS = 100_000
#: upper bounds :func:`positive_setting` applies, by setting name (DMLab config names included)
LIMITS = {"width": MAX_FRAME_SIDE, "height": MAX_FRAME_SIDE, "fps": MAX_FPS, "action_repeat": MAX_ACTION_REPEAT,
          "episode_length_seconds": MAX_EPISODE_SECONDS, "episodeLengthSeconds": MAX_EPISODE_SECONDS}

_LUA_INT = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|[0-9]+)$")
_LUA_FLOAT = re.compile(r"^[-+]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?"
                        r"|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][-+]?[0-9]+)?)$")


class SettingError(ValueError):
    """A setting value that does not convert to the setting's type.

    ``name`` is the setting, ``expected`` the type it takes in words (e.g.
    ``'an integer'``) and ``value`` the value given; ``where`` (optional)
    prefixes the message with the host call (e.g. ``'Lab: config'``).
    """

    def __init__(self, name: str, expected: str, value: Any, where: str = ""):
        super().__init__(refusal(where, f"setting {name!r}", expected, value))
        self.name = name
        self.expected = expected
        self.value = value


def lua_tonumber(text: str) -> Optional[Union[int, float]]:
    """The number Lua's ``tonumber(text)`` reads (int or float), or None.
    Accepts surrounding spaces, decimal and hexadecimal integers and floats;
    rejects ``inf``, ``nan`` and Python-only forms such as ``1_000``. As in Lua,
    a decimal integer past 64 bits reads as a float (``inf`` past the float range)."""
    if not isinstance(text, str):
        return None
    s = text.strip()
    if _LUA_INT.match(s):
        sign = -1 if s.startswith("-") else 1
        digits = s.lstrip("+-")
        if digits[:2].lower() == "0x":
            return sign * int(digits, 16)
        magnitude = int(digits) if len(digits.lstrip("0")) <= 19 else None   # no digit-limit error
        if magnitude is not None and magnitude <= 2 ** 63 - (sign > 0):
            return sign * magnitude
        return float(s)   # past 64 bits Lua reads a decimal numeral as a float (inf past the float range)
    if _LUA_FLOAT.match(s):
        sign = -1.0 if s.startswith("-") else 1.0
        body = s.lstrip("+-")
        if body[:2].lower() == "0x":
            return sign * float.fromhex(body if "p" in body.lower() else body + "p0")
        return sign * float(body)
    return None


def _number(name: str, default: numbers.Number, value: Any) -> Union[int, float]:
    integral = isinstance(default, numbers.Integral)
    expected = "an integer" if integral else "a finite number"
    if isinstance(value, str):
        number = lua_tonumber(value)
    elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        number = value
    else:
        number = None
    if isinstance(number, numbers.Integral):
        return int(number) if integral else _finite_float(name, expected, value, number)
    if number is None or not math.isfinite(number) or integral and not float(number).is_integer():
        raise SettingError(name, expected, value)
    return int(number) if integral else float(number)


def _finite_float(name: str, expected: str, value: Any, number: int) -> float:
    """``number`` (an int) as a float; SettingError when it is past the float range."""
    try:
        return float(number)
    except OverflowError:
        raise SettingError(name, expected, value) from None


def convert_setting(name: str, default: Any, value: Any) -> Any:
    """``value`` (a string as the hosts pass it, or a Python value) as the
    type of ``default``, the setting ``name``'s default or current value
    (bool, int, float, str, tuple or list; see the module docstring).

    Raises SettingError (a ValueError) when ``value`` does not fit, and
    TypeError when ``default`` is of none of those types.
    """
    if isinstance(default, (bool, np.bool_)):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, str) and value in ("true", "false"):
            return value == "true"
        raise SettingError(name, "'true' or 'false'", value)
    if isinstance(default, numbers.Real):
        return _number(name, default, value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise SettingError(name, "a string", value)
        return value
    if isinstance(default, (tuple, list)):
        if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, np.ndarray)):
            raise SettingError(name, f"a sequence (like {default!r})", value)
        items = [convert_setting(f"{name}.{i + 1}", default[min(i, len(default) - 1)], v) if default else v
                 for i, v in enumerate(value)]
        return type(default)(items)
    raise TypeError(f"setting {name!r} holds a {type(default).__name__}, which has no conversion")


def _bound(number: Union[int, float]) -> str:
    return str(number) if isinstance(number, numbers.Integral) else f"{number:g}"


def bounded_setting(name: str, default: Any, value: Any, low: Union[int, float], high: Optional[Union[int, float]],
                    where: str = "", low_open: bool = False, expected: str = "") -> Union[int, float]:
    """``value`` converted to the type of ``default`` (an int or a float) by :func:`convert_setting`
    (finite), checked to lie in ``[low, high]`` (``(low, high]`` with ``low_open``; no upper bound
    when ``high`` is None). Raises SettingError naming ``where`` (when given), the setting and its
    range (``expected``, when given, says it in other words) for a value of the wrong type or out
    of range."""
    if not expected:
        kind = "an integer" if isinstance(default, numbers.Integral) else "a number"
        expected = f"{kind} {'>' if low_open else '>='} {_bound(low)}" if high is None else \
            f"{kind} in {'(' if low_open else '['}{_bound(low)}, {_bound(high)}]"
    try:
        number = convert_setting(name, default, value)
    except SettingError:
        raise SettingError(name, expected, value, where) from None
    if not (low < number if low_open else low <= number) or high is not None and number > high:
        raise SettingError(name, expected, value, where)
    return number


def positive_setting(name: str, default: Any, value: Any, where: str = "") -> Union[int, float]:
    """``value`` converted to the type of ``default`` (an int or a float) by
    :func:`convert_setting`, checked to be finite, > 0 and at most
    ``LIMITS[name]`` when the setting has a limit (frame sizes in pixels,
    rates in frames per second, lengths in seconds). Raises SettingError
    (naming ``where`` when given) otherwise."""
    high = LIMITS.get(name)
    if isinstance(default, numbers.Integral):
        expected = "a positive integer" + (f" in [1, {high}]" if high else "")
        return bounded_setting(name, default, value, 1, high, where, expected=expected)
    expected = "a positive number" + (f" in (0, {high:g}]" if high else "")
    return bounded_setting(name, default, value, 0.0, high, where, low_open=True, expected=expected)


# -- typed values: one check each, shared by the hosts ----------------------------------------------

def describe(value: Any) -> str:
    """``value`` for a message: its short repr and its type name, e.g. ``'1.7 (float)'``; numpy
    scalars read as Python numbers (``'2 (int32)'``), integers too long to write as their digit count;
    arrays with dimensions add their shape and dtype."""
    if isinstance(value, numbers.Integral) and abs(int(value)).bit_length() > 4096:   # past Python's digit limit
        text = f"{'-' if value < 0 else ''}<{int(abs(int(value)).bit_length() * math.log10(2)) + 1} digits>"
    else:
        text = repr(value.item()) if isinstance(value, np.generic) else reprlib.repr(value)
    shape = getattr(value, "shape", ())
    if shape and hasattr(value, "dtype"):
        return f"{text} ({type(value).__name__}, shape {tuple(shape)}, dtype {np.dtype(value.dtype).name})"
    return f"{text} ({type(value).__name__})"


def refusal(where: str, what: str, expected: str, value: Any) -> str:
    """The one message form of a refused value: ``'<where>: <what>: expected <expected>, got <value> (<type>)'``
    (no ``where`` prefix when it is empty)."""
    return f"{where + ': ' if where else ''}{what}: expected {expected}, got {describe(value)}"


def numeric_kind(value: Any) -> str:
    """``'i'`` for an integer (a Python int, a numpy integer scalar or a 0-d integer array, numpy's
    or jax's), ``'f'`` for a real float (the same forms), ``''`` for anything else: bools, strings,
    None, complex numbers, containers and arrays with dimensions."""
    if isinstance(value, (bool, np.bool_)):
        return ""
    if isinstance(value, numbers.Integral):
        return "i"
    if isinstance(value, numbers.Real):
        return "f"
    dtype = getattr(value, "dtype", None)
    if dtype is not None and getattr(value, "shape", None) == ():
        return {"i": "i", "u": "i", "f": "f"}.get(np.dtype(dtype).kind, "")
    return ""


def integer_value(where: str, what: str, value: Any, low: int, high: int) -> int:
    """``value`` as a Python int when it is an integer (see :func:`numeric_kind`; a bool is not one)
    in ``[low, high]``. ``what`` names the value in the message (e.g. ``"action '1.move'"``).

    Raises TypeError for any other type (1.7, ``'1'``, True, None, a list) and ValueError outside the
    range, both naming ``where``, ``what``, the range and the value.
    """
    expected = f"an integer in [{low}, {high}]"
    if numeric_kind(value) != "i":
        raise TypeError(refusal(where, what, expected, value))
    number = int(value)
    if not low <= number <= high:
        raise ValueError(refusal(where, what, expected, value))
    return number


def number_value(where: str, what: str, value: Any, low: float, high: float, low_open: bool = False) -> float:
    """``value`` as a Python float when it is a real number (an integer or a float, see
    :func:`numeric_kind`) that is finite and in ``[low, high]`` (``(low, high]`` with ``low_open``).

    Raises TypeError for other types and ValueError for NaN, ±inf and values outside the range.
    """
    expected = f"a number in {'(' if low_open else '['}{low:g}, {high:g}]"
    kind = numeric_kind(value)
    if not kind:
        raise TypeError(refusal(where, what, expected, value))
    number = int(value) if kind == "i" else float(value)   # huge ints compare exactly, never overflow
    if kind == "f" and not math.isfinite(number) or not (low < number if low_open else low <= number) \
            or not number <= high:
        raise ValueError(refusal(where, what, expected, value))
    return float(number)


def names_value(where: str, what: str, value: Any, allow_str: bool = False) -> Tuple[str, ...]:
    """``value`` as a tuple of names when it is a list or tuple of distinct str (or, with ``allow_str``,
    one str: a single name); TypeError naming ``where`` and ``what`` otherwise, ValueError naming the
    first name listed twice."""
    if allow_str and isinstance(value, str):
        return (value,)
    expected = "a list of names (str)" + (" or one name" if allow_str else "")
    if not isinstance(value, (list, tuple)) or not all(isinstance(n, str) for n in value):
        raise TypeError(refusal(where, what, expected, value))
    counts = collections.Counter(value)
    twice = next((n for n in value if counts[n] > 1), None)
    if twice is not None:
        raise ValueError(refusal(where, what, f"{expected}, each once ({twice!r} is listed twice)", value))
    return tuple(value)


# -- jaxlab.make's typed settings -----------------------------------------------------------------

def _integer(low: int, high: int) -> Callable:
    return lambda where, name, value: integer_value(where, f"setting {name!r}", value, low, high)


def _seconds(where: str, name: str, value: Any) -> float:
    return number_value(where, f"setting {name!r}", value, 0.0, MAX_EPISODE_SECONDS, low_open=True)


def _names(where: str, name: str, value: Any) -> Tuple[str, ...]:
    return names_value(where, f"setting {name!r}", value, allow_str=True)


def _mapping(where: str, name: str, value: Any) -> Mapping:
    if not isinstance(value, Mapping):
        raise TypeError(refusal(where, f"setting {name!r}", "a dict", value))
    return value


def _path(where: str, name: str, value: Any) -> Union[str, os.PathLike]:
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(refusal(where, f"setting {name!r}", "a folder path (str or os.PathLike)", value))
    return value


def _layouts(where: str, name: str, value: Any):
    from jaxlab.bank import Bank

    return value if isinstance(value, Bank) else integer_value(
        where, f"setting {name!r} (a count, or a Bank of layouts)", value, 0, MAX_COUNT)


#: jaxlab's own Python settings (``jaxlab.make``), name -> check(where, name, value) -> the value to use
TYPED_SETTINGS: Dict[str, Callable] = {
    "width": _integer(1, MAX_FRAME_SIDE), "height": _integer(1, MAX_FRAME_SIDE),
    "fps": _integer(1, MAX_FPS), "action_repeat": _integer(1, MAX_ACTION_REPEAT),
    "episode_length_seconds": _seconds, "observations": _names,
    "seed": _integer(*SEED_RANGE), "episodes": _integer(1, MAX_COUNT), "num_games": _integer(1, MAX_COUNT),
    "layouts": _layouts, "max_steps": _integer(1, INT32_MAX), "text_length": _integer(1, MAX_TEXT_LENGTH),
    "level_settings": _mapping, "levels_dir": _path, "dmlab_root": _path,
}
#: typed settings for which None means "the level's default" (the setting is then left out)
DEFAULT_WHEN_NONE = ("episode_length_seconds", "observations", "max_steps", "level_settings", "levels_dir")


def check_settings(where: str, settings: Mapping[str, Any]) -> Dict[str, Any]:
    """``settings`` with jaxlab's typed settings checked (the others, e.g. a grid level's Lab2D-style
    camelCase settings or a text family's options, pass through for their level to check):

    - width, height: pixels, integers in [1, MAX_FRAME_SIDE]; fps: integer in [1, MAX_FPS];
      action_repeat: frames per step, integer in [1, MAX_ACTION_REPEAT];
    - episode_length_seconds: seconds of game time, a finite number in (0, MAX_EPISODE_SECONDS];
    - observations: a list or tuple of names, or one name (str);
    - seed: integer in SEED_RANGE; episodes, num_games: integers in [1, MAX_COUNT]; layouts: an
      integer in [0, MAX_COUNT] or a ``Bank``; max_steps: integer in [1, 2**31 - 1]; text_length:
      tokens, integer in [1, MAX_TEXT_LENGTH];
    - level_settings: a dict; levels_dir, dmlab_root: a str or os.PathLike.

    Integers are Python ints, numpy integer scalars or 0-d integer arrays (not bools, not floats
    such as 96.0, not strings such as '96': these are jaxlab's Python settings, unlike DMLab's
    string config); numbers are integers or floats. None for a setting in DEFAULT_WHEN_NONE means
    the default: it is left out of the result. Checked values come back as Python ints, floats
    and tuples. Raises TypeError for a wrong type and ValueError for a value out of range or not
    finite, naming ``where`` (e.g. ``'jaxlab.make'``), the setting and its range.
    """
    out = {}
    for name, value in settings.items():
        if value is None and name in DEFAULT_WHEN_NONE:
            continue
        check = TYPED_SETTINGS.get(name)
        out[name] = value if check is None else check(where, name, value)
    return out


__all__ = ["DEFAULT_WHEN_NONE", "INT32_MAX", "LIMITS", "MAX_ACTION_REPEAT", "MAX_BEAM_CELLS", "MAX_COUNT",
           "MAX_EPISODE_SECONDS", "MAX_FPS", "MAX_FRAME_SIDE", "MAX_GENERATOR_STEPS", "MAX_GRID_SIDE",
           "MAX_NEIGHBOUR_RADIUS", "MAX_REWARD", "MAX_TEXT_LENGTH", "SEED_RANGE", "SettingError", "TYPED_SETTINGS",
           "bounded_setting", "check_settings", "convert_setting", "describe", "integer_value", "lua_tonumber",
           "names_value", "number_value", "numeric_kind", "positive_setting", "refusal"]


def check_names(settings: Mapping[str, Any], allowed: Sequence[str], what: str = "setting") -> None:
    """Refuse a key of ``settings`` that is not in ``allowed``: UnknownNameError naming ``what`` and the
    close matches. Every family's constructor checks its setting names through here."""
    for key in settings:
        if key not in allowed:
            raise unknown_name_error(what, key, allowed)
