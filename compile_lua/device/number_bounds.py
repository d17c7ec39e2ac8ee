"""What a number kept in play-time state may be: the bounds of its layout entry (``compile_lua.device.layouts``).

A number field of a record keeps the interval its values lie in (``("int", lo, hi)``), so that a field every write
gives one number is that constant (PsychLab's widgets' image layer) and a test its interval decides is decided
when translating (a widget placed inside the screen is never clipped). A bound that grows becomes unbounded at
once, so that settling ends. Play-time variables themselves are any number (:func:`scalar_unbounded`).
"""
from __future__ import annotations

import math
from typing import Any

from compile_lua.device.values import MaybeNum


def number_kind(is_int: bool, lo: float, hi: float) -> tuple:
    """The layout entry of a number known to lie in [``lo``, ``hi``]: ``("int", lo, hi)`` / ``("float", lo, hi)``
    while both are finite (a variable every write gives the same number is that constant: ``load``), else the
    entry of any number, ``("int",)`` / ``("float",)``."""
    name = "int" if is_int else "float"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return (name,)
    return (name, int(lo), int(hi)) if is_int else (name, float(lo), float(hi))


def numbers_joined(kind: tuple, got: tuple) -> tuple:
    """The entry of a number variable of entry ``kind`` that a number of entry ``got`` is written to: a float when
    either is; its bounds while ``got``'s lie within them, else unbounded (so that settling ends: a counter's
    bounds grow once, then it is any number)."""
    is_int = kind[0] == got[0] == "int"
    if len(kind) == 3 and len(got) == 3 and kind[1] <= got[1] and got[2] <= kind[2]:
        return number_kind(is_int, kind[1], kind[2])
    return ("int",) if is_int else ("float",)


def unbounded(kind: tuple) -> tuple:
    """``kind`` without the bounds of its numbers (a variable that starts from its zero value, not the numbers
    first written to it)."""
    if kind[0] in ("int", "float"):
        return (kind[0],)
    if kind[0] == "record":
        return ("record", tuple((k, unbounded(sub)) for k, sub in kind[1]))
    if kind[0] == "tuple":
        return ("tuple", tuple(unbounded(sub) for sub in kind[1]))
    if kind[0] == "maybe":
        return ("maybe", unbounded(kind[1]))
    return kind


def scalar_unbounded(kind: tuple) -> tuple:
    """A number's entry without its bounds; any other entry as it is. A number that may be nil (its zero value is
    not one it is given) and a play-time variable itself (the host and the engine may set it between calls: a
    Lab2D property written, each episode's start) are any number; a record's fields keep their bounds."""
    if kind[0] == "maybe":
        return ("maybe", scalar_unbounded(kind[1]))
    return (kind[0],) if kind[0] in ("int", "float") else kind


def constant_key(v: Any) -> Any:
    """The number a number-or-nil ``v`` holds where it holds one, when its bounds fix it (a record's field every
    write gives one number: PsychLab's widgets' image layers); else None."""
    if isinstance(v, MaybeNum) and v.lo == v.hi and math.isfinite(v.lo):
        return int(v.lo) if v.is_int else v.lo
    return None
