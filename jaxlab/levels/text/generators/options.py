"""Checking a family's options: known names, integer ranges, choices, booleans, seeds.

Unknown names raise :func:`jaxlab.errors.unknown_name_error` (with close
matches); bad values raise ValueError naming the option and what it accepts.
"""
from __future__ import annotations

import numbers
from typing import Any, Dict, Mapping, Sequence

import numpy as np

from jaxlab.errors import unknown_name_error


def resolve(family: str, given: Mapping[str, Any], defaults: Mapping[str, Any]) -> Dict[str, Any]:
    """``defaults`` updated with ``given``; an option name the family lacks raises UnknownNameError."""
    for name in given:
        if name not in defaults:
            raise unknown_name_error(f"{family} option", name, defaults)
    return {**defaults, **given}


def integer(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int; ValueError unless it is an integer in ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    return int(value)


def choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``; otherwise an UnknownNameError (a ValueError) listing them."""
    if value not in choices:
        raise unknown_name_error(f"{name} value", value, choices)
    return value


def flag(name: str, value: Any) -> bool:
    """``value`` if it is a bool (numpy bools too); ValueError otherwise."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def rngs(seed: Any, count: int):
    """``count`` independent numpy Generators drawn from ``seed`` (a non-negative integer)."""
    seed = integer("seed", seed, 0, 2**63 - 1)
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(count)]
