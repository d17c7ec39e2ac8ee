"""Parser for DMLab text maps (entity layer plus optional variations layer).

One character per cell, row 0 at the top. ``*`` wall, space floor, ``P``
spawn, ``G`` goal, ``A`` apple, ``I`` a door crossed left-right, ``H`` a door
crossed up-down: a door needs a room (a floor, spawn or pickup cell) on both
sides it joins. Lines shorter than the longest are padded with walls, as
DMLab's text-level format specifies (a map's width is its longest line, and a
cell no line reaches is a wall), so ragged rows are accepted on purpose. The
variations layer has the same layout; ``A``–``Z`` select a texture/colour
variation for the cell, anything else keeps the default.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np

from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX

CELL_FLOOR, CELL_WALL, CELL_DOOR_I, CELL_DOOR_H = 0, 1, 2, 3

STRUCTURE_CHARS = {"*": CELL_WALL, " ": CELL_FLOOR, "I": CELL_DOOR_I, "H": CELL_DOOR_H}
DEFAULT_PICKUP_CHARS = {"A": "apple_reward", "G": "goal"}
SPAWN_CHAR = "P"
#: door code -> (its character, the axis it is crossed along, the two sides it joins as (row, col) steps)
DOOR_SIDES = {CELL_DOOR_I: ("I", "left-right", (("to its left", (0, -1)), ("to its right", (0, 1)))),
              CELL_DOOR_H: ("H", "up-down", (("above it", (-1, 0)), ("below it", (1, 0))))}


class MapError(ValueError):
    """A malformed text map; the message starts with ``source:line:column:``."""

    def __init__(self, source: str, line: int, column: int, message: str):
        self.source, self.line, self.column = source, line, column
        super().__init__(f"{source}:{line}:{column}: {message}")


@dataclasses.dataclass(frozen=True)
class ParsedMap:
    """A parsed text map (host-side numpy; rows top to bottom).

    cells:     int8[R, C] CELL_FLOOR / CELL_WALL / CELL_DOOR_I / CELL_DOOR_H.
    variation: int8[R, C] 0 default, 1..26 for variations 'A'..'Z'.
    spawns:    (row, col) of every ``P``.
    pickups:   (row, col, pickup type name) of every pickup character.
    floor_z:   None for a flat map, or float32[2 R, 2 C] the ground's height per height cell in units
               (``heights.NO_FLOOR`` where there is none): a text level with platforms.
    """

    cells: np.ndarray
    variation: np.ndarray
    spawns: Tuple[Tuple[int, int], ...]
    pickups: Tuple[Tuple[int, int, str], ...]
    floor_z: Optional[np.ndarray] = None

    @property
    def shape(self) -> Tuple[int, int]:
        """(rows, columns) of the map."""
        return self.cells.shape


def decode_map_text(data: bytes, source: str) -> str:
    """The text of a map file's bytes ``data``, read as UTF-8; MapError naming ``source``, the line
    and column (in bytes) and the byte offset of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line_start = data.rfind(b"\n", 0, error.start) + 1
        raise MapError(source, data.count(b"\n", 0, error.start) + 1, error.start - line_start + 1,
                       f"not UTF-8 text: byte 0x{data[error.start]:02x} at byte offset {error.start} "
                       f"({error.reason})") from None


def _lines(text: str) -> Tuple[int, List[str]]:
    """(number of leading blank lines dropped, the remaining lines without trailing blanks)."""
    lines = [l.rstrip("\r") for l in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    skipped = 0
    while lines and not lines[0].strip():
        lines.pop(0)
        skipped += 1
    return skipped, lines


def _check_doors(cells: np.ndarray, lines: List[str], source: str, first_line: int) -> None:
    """MapError at the first door (in reading order) without a room on both sides along its axis.
    ``cells``: int8[R, C] codes (an enclosed map: no door on the border); ``lines``: its text rows."""
    for r, c in np.argwhere(np.isin(cells, list(DOOR_SIDES))):
        char, axis, sides = DOOR_SIDES[int(cells[r, c])]
        for side, (dr, dc) in sides:
            if cells[r + dr, c + dc] == CELL_FLOOR:
                continue
            line = lines[r + dr]
            found = f"{line[c + dc]!r}" if c + dc < len(line) else "a wall (its line ends before it)"
            raise MapError(source, first_line + r, c + 1,
                           f"door {char!r} has no room {side}: a door crossed {axis} needs a floor, spawn or "
                           f"pickup cell on both of those sides, found {found}")


def parse_text_map(
    text: str,
    variations: Optional[str] = None,
    pickups: Optional[Mapping[str, str]] = None,
    source: str = "<map>",
    require_spawn: bool = True,
    check_pickup_names: bool = True,
) -> ParsedMap:
    """Parse a DMLab text map.

    Args:
      text: the entity layer, one character per cell.
      variations: optional variations layer of the same layout.
      pickups: extra pickup characters, e.g. ``{"L": "lemon_reward"}``, on top
        of ``A`` (apple_reward) and ``G`` (goal).
      source: a name for error messages (a file path).
      require_spawn: raise if the map has no ``P``.
      check_pickup_names: require ``pickups`` names to be built-in pickup types
        (Lua levels turn off the check: their classes may come from createPickup).

    Returns: a ParsedMap. Raises MapError with ``source:line:column:``.
    """
    legend: Dict[str, str] = dict(DEFAULT_PICKUP_CHARS)
    for ch, name in (pickups or {}).items():
        if len(ch) != 1 or ch in STRUCTURE_CHARS or ch == SPAWN_CHAR:
            raise ValueError(f"pickup character {ch!r} is reserved or not one character")
        if check_pickup_names and name not in PICKUP_INDEX:
            from jaxlab.errors import unknown_name_error

            raise unknown_name_error("pickup", name, PICKUP_INDEX)
        legend[ch] = name
    allowed = "".join(sorted(set(STRUCTURE_CHARS) | set(legend) | {SPAWN_CHAR}))

    skipped, lines = _lines(text)
    if not lines:
        raise MapError(source, 1, 1, "the map is empty")
    first_line = skipped + 1
    rows, cols = len(lines), max(len(l) for l in lines)
    cells = np.full((rows, cols), CELL_WALL, np.int8)
    spawns, found = [], []
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            where = (source, first_line + r, c + 1)
            if ch in STRUCTURE_CHARS:
                cells[r, c] = STRUCTURE_CHARS[ch]
            elif ch == SPAWN_CHAR or ch in legend:
                cells[r, c] = CELL_FLOOR
                if ch == SPAWN_CHAR:
                    spawns.append((r, c))
                else:
                    found.append((r, c, legend[ch]))
            else:
                raise MapError(*where, f"unknown map character {ch!r}; allowed: {allowed!r}")
            on_border = r in (0, rows - 1) or c in (0, cols - 1)
            if on_border and cells[r, c] != CELL_WALL:
                raise MapError(*where, f"map not enclosed: {ch!r} on the border must be a wall '*'")
    if require_spawn and not spawns:
        raise MapError(source, first_line, 1, "no spawn point: the map needs at least one 'P'")
    _check_doors(cells, lines, source, first_line)

    variation = np.zeros((rows, cols), np.int8)
    if variations is not None:
        vskipped, vlines = _lines(variations)
        if len(vlines) > rows:
            raise MapError(f"{source} (variations)", rows + 1, 1,
                           f"variations layer has {len(vlines)} rows, the map has {rows}")
        for r, line in enumerate(vlines):
            if len(line) > cols:
                raise MapError(f"{source} (variations)", vskipped + r + 1, cols + 1,
                               f"variations line is longer than the map ({cols} columns)")
            for c, ch in enumerate(line):
                if "A" <= ch <= "Z":
                    variation[r, c] = ord(ch) - ord("A") + 1
                elif ch not in " .*":
                    raise MapError(f"{source} (variations)", vskipped + r + 1, c + 1,
                                   f"unknown variation character {ch!r}; use 'A'-'Z', '.' or ' '")
    return ParsedMap(cells, variation, tuple(spawns), tuple(found))
