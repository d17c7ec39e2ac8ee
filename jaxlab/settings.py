"""The conversion of a setting value to its setting's type, for every host.

Hosts pass settings as strings (DMLab's config dict, Lab2D's properties and
``init(settings)`` tables) or as Python values (``jaxlab.make(level,
**settings)``). :func:`convert_setting` turns either into the type of the
setting's default (or current) value, by Lab2D's rules, which are Lua's:

- booleans: ``'true'`` / ``'false'`` (or a Python bool); nothing else;
- numbers: as Lua's ``tonumber`` reads a string (:func:`lua_tonumber`:
  ``' 6 '``, ``0x10``, ``1e2``; not ``inf``, ``nan``, ``1_000``) or a Python
  int/float; an integer setting refuses a non-integer (``5.5``: Lua has one
  number type and would store it, jaxlab keeps integer settings integers);
- strings: as given;
- tuples and lists: a sequence of any length, each element converted to the
  type of the default's element at its index (past the end: the last one).

A value that does not fit raises :class:`SettingError` (a ValueError) naming
the setting and the type it expects.
"""
from __future__ import annotations

import numbers
import re
from typing import Any, Optional, Union

import numpy as np

_LUA_INT = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|[0-9]+)$")
_LUA_FLOAT = re.compile(r"^[-+]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?"
                        r"|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][-+]?[0-9]+)?)$")


class SettingError(ValueError):
    """A setting value that does not convert to the setting's type.

    ``name`` is the setting, ``expected`` the type it takes in words (e.g.
    ``'an integer'``) and ``value`` the value given.
    """

    def __init__(self, name: str, expected: str, value: Any):
        super().__init__(f"setting {name!r}: expected {expected}, got {value!r}")
        self.name = name
        self.expected = expected
        self.value = value


def lua_tonumber(text: str) -> Optional[Union[int, float]]:
    """The number Lua's ``tonumber(text)`` reads (int or float), or None.
    Accepts surrounding spaces, decimal and hexadecimal integers and floats;
    rejects ``inf``, ``nan`` and Python-only forms such as ``1_000``."""
    if not isinstance(text, str):
        return None
    s = text.strip()
    if _LUA_INT.match(s):
        sign = -1 if s.startswith("-") else 1
        digits = s.lstrip("+-")
        return sign * int(digits, 16 if digits[:2].lower() == "0x" else 10)
    if _LUA_FLOAT.match(s):
        sign = -1.0 if s.startswith("-") else 1.0
        body = s.lstrip("+-")
        if body[:2].lower() == "0x":
            return sign * float.fromhex(body if "p" in body.lower() else body + "p0")
        return sign * float(body)
    return None


def _number(name: str, default: numbers.Number, value: Any) -> Union[int, float]:
    integral = isinstance(default, numbers.Integral)
    expected = "an integer" if integral else "a number"
    if isinstance(value, str):
        number = lua_tonumber(value)
    elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        number = value
    else:
        number = None
    if number is None:
        raise SettingError(name, expected, value)
    if integral:
        if not float(number).is_integer():
            raise SettingError(name, expected, value)
        return int(number)
    return float(number)


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


def positive_setting(name: str, default: Any, value: Any) -> Union[int, float]:
    """``value`` converted to the type of ``default`` (an int or a float) by
    :func:`convert_setting`, checked to be > 0 (frame sizes, rates, lengths).
    Raises SettingError otherwise."""
    number = convert_setting(name, default, value)
    if not number > 0:
        raise SettingError(name, "a positive integer" if isinstance(number, int) else "a positive number", value)
    return number


__all__ = ["SettingError", "convert_setting", "lua_tonumber", "positive_setting"]
