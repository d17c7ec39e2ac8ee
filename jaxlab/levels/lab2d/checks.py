"""A grid level's settings and map checks: ``merge_settings`` (Lab2D-style
camelCase names, values converted by :func:`jaxlab.settings.convert_setting`),
``check_map`` and ``check_players`` (player counts against spawn cells)."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.settings import convert_setting


def merge_settings(level: str, defaults: Mapping[str, Any],
                   settings: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """``defaults`` updated by ``settings``, each value (a string or a Python
    value) converted to its default's type by :func:`convert_setting`. An
    unknown key raises ``UnknownNameError`` naming the close ones, a value
    that does not convert ``SettingError`` (a ValueError), a ``spriteSize``
    other than 8 or 16 or an ``episodeLengthFrames`` below 1 ValueError."""
    merged = dict(defaults)
    for key, value in dict(settings or {}).items():
        if key not in defaults:
            raise unknown_name_error(f"setting of {level}", key, defaults)
        merged[key] = convert_setting(key, defaults[key], value)
    if merged.get("spriteSize", 8) not in (8, 16):
        raise ValueError(f"{level}: spriteSize must be 8 or 16, got {merged['spriteSize']}")
    if int(merged.get("episodeLengthFrames", 1)) < 1:
        raise ValueError(f"{level}: episodeLengthFrames must be positive")
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
        raise ValueError(f"{level}: {label} must be {minimum}..{spawns}, got {count}")
    return count
