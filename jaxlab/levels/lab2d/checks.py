"""A grid level's settings and map checks: ``merge_settings`` (Lab2D-style
camelCase names, values converted by :func:`jaxlab.settings.convert_setting`
and checked against ``RANGES``), ``check_map`` and ``check_players`` (player
counts against spawn cells).

Every built-in grid level reads its settings through ``merge_settings``, so a
value is checked the same way whichever way it comes: ``jaxlab.make(level,
**settings)``, ``jaxlab.grid.Lab2d(level, settings=...)`` or the host's
``write_property`` (which rebuilds the level from the written settings).
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from jaxlab.errors import unknown_name_error
from jaxlab.settings import (INT32_MAX, MAX_BEAM_CELLS, MAX_COUNT, MAX_GENERATOR_STEPS, MAX_GRID_SIDE,
                             MAX_NEIGHBOUR_RADIUS, MAX_REWARD, SettingError, bounded_setting, convert_setting)


class Range(NamedTuple):
    """The values a numeric setting takes: ``[low, high]``, or ``(low, high]`` with ``low_open``."""

    low: Union[int, float]
    high: Union[int, float]
    low_open: bool = False


_FRAMES = Range(0, INT32_MAX)                  # a count of frames (cooldowns, freezes, respawns)
_REWARD = Range(-MAX_REWARD, MAX_REWARD)       # a reward (or cost) per event
_PROBABILITY = Range(0.0, 1.0)                 # a chance per cell per frame
_PLAYERS = Range(0, MAX_COUNT)                 # the level's spawn points bound it further (check_players)

#: the range of every numeric setting of the built-in grid levels, by name (nested ones dotted);
#: a sequence setting's range is each element's
RANGES: Dict[str, Range] = {
    "episodeLengthFrames": Range(1, INT32_MAX), "spriteSize": Range(8, 16),
    "numPlayers": _PLAYERS, "numPredators": _PLAYERS, "numPrey": _PLAYERS,
    "gridShape.width": Range(3, MAX_GRID_SIDE), "gridShape.height": Range(3, MAX_GRID_SIDE),
    "numBoxes": Range(1, MAX_GRID_SIDE ** 2), "roomSteps": Range(0, MAX_GENERATOR_STEPS),
    "stepCost": _REWARD, "appleReward": _REWARD, "catchReward": _REWARD, "caughtReward": _REWARD,
    "appleRegrowProbability": _PROBABILITY, "pollutionProbability": _PROBABILITY,
    "appleRespawnProbability": _PROBABILITY, "itemRegrowProbability": _PROBABILITY,
    "regrowthProbabilities": _PROBABILITY, "pollutionThreshold": Range(0.0, 1.0, low_open=True),
    "zapLength": Range(1, MAX_BEAM_CELLS), "cleanLength": Range(1, MAX_BEAM_CELLS),
    "zapRadius": Range(0, MAX_BEAM_CELLS), "cleanRadius": Range(0, MAX_BEAM_CELLS),
    "regrowthRadius": Range(0, MAX_NEIGHBOUR_RADIUS),
    "zapCooldown": _FRAMES, "cleanCooldown": _FRAMES, "freezeFrames": _FRAMES, "preyRespawnFrames": _FRAMES,
    "respawnFrames": _FRAMES, "minItems": Range(1, INT32_MAX),
}


def _setting(level: str, name: str, default: Any, value: Any) -> Any:
    """``value`` of setting ``name`` converted to its default's type and checked against its range."""
    if isinstance(default, Mapping):
        if not isinstance(value, Mapping):
            raise SettingError(name, f"a dict of its settings (like {dict(default)!r})", value, level)
        return merge_settings(level, default, value, prefix=name + ".")
    rule = RANGES.get(name)
    if rule is not None and not isinstance(default, (bool, str, tuple, list)):
        return bounded_setting(name, default, value, rule.low, rule.high, level, rule.low_open)
    try:
        converted = convert_setting(name, default, value)
    except SettingError as err:
        if rule is not None and err.name != name:   # an element of a sequence: its message with its range
            bounded_setting(err.name, default[0], err.value, rule.low, rule.high, level, rule.low_open)
        raise SettingError(err.name, err.expected, err.value, level) from None
    if rule is not None and isinstance(default, (tuple, list)):   # each element in the range
        return type(default)(bounded_setting(f"{name}.{i + 1}", v, v, rule.low, rule.high, level, rule.low_open)
                             for i, v in enumerate(converted))
    return converted


def merge_settings(level: str, defaults: Mapping[str, Any], settings: Optional[Mapping[str, Any]],
                   prefix: str = "") -> Dict[str, Any]:
    """``defaults`` updated by ``settings`` (a dict; nested settings as dicts or by dotted names such
    as ``gridShape.width``), each value (a string or a Python value) converted to its default's
    type by :func:`convert_setting` and, for a number, checked against its ``RANGES`` entry
    (finite, within its range; a sequence element by element). ``prefix`` names nested settings
    (``'gridShape.'``). Raises ``UnknownNameError`` (with close matches) for an unknown name and
    ``SettingError`` (a ValueError naming ``level``, the setting and what it takes) for a value
    of the wrong type or out of range, including a ``spriteSize`` other than 8 or 16."""
    if settings is not None and not isinstance(settings, Mapping):
        raise SettingError(prefix[:-1] or "settings", "a dict of level settings", settings, level)
    merged = dict(defaults)
    nested: Dict[str, Dict[str, Any]] = {}
    for key, value in dict(settings or {}).items():
        head, dot, rest = str(key).partition(".")
        if dot and isinstance(defaults.get(head), Mapping):
            nested.setdefault(head, {})[rest] = value
            continue
        if key not in defaults:
            raise unknown_name_error(f"setting of {level}", prefix + str(key), [prefix + k for k in defaults])
        merged[key] = _setting(level, prefix + key, defaults[key], value)
    for head, values in nested.items():
        merged[head] = merge_settings(level, merged[head], values, prefix=f"{prefix}{head}.")
    if merged.get("spriteSize", 8) not in (8, 16):
        raise SettingError("spriteSize", "8 or 16", merged["spriteSize"], level)
    return merged


def check_map(level: str, rows: Sequence[str]) -> Tuple[str, ...]:
    """The map rows as a tuple, after checking they are non-empty and rectangular."""
    rows = tuple(rows)
    if not rows or any(len(row) != len(rows[0]) for row in rows):
        raise ValueError(f"{level}: map rows must all have the same length")
    return rows


def count_char(rows: Sequence[str], chars: str) -> int:
    """How many cells of ``rows`` hold one of ``chars``."""
    return sum(row.count(c) for row in rows for c in chars)


def check_players(level: str, label: str, count: int, rows: Sequence[str], spawn_chars: str,
                  minimum: int = 1) -> int:
    """``count`` (setting ``label``), after checking it lies between ``minimum``
    and the number of spawn cells (``spawn_chars``) in ``rows``."""
    spawns = count_char(rows, spawn_chars)
    if not minimum <= count <= spawns:
        raise SettingError(label, f"an integer in [{minimum}, {spawns}] (the map's spawn points)", count, level)
    return count
