"""The map a script's ``nextMap`` names: one made with ``common.make_map`` or ``dmlab.system.map_maker``,
or a text map file.

A name that is not a made map is looked up as ``<name>.txt`` (and its
optional ``<name>.variations.txt``) in the script's folder, the levels
folder, then the built-in maps (``jaxlab/levels/dmlab/maps``), through
:meth:`compile_lua.sandbox.Sandbox.read_data_file`: only plain names, only
inside those folders after symlinks, every file read recorded. Any other
name gets one message, whether or not a file of that name exists elsewhere.
"""
from __future__ import annotations

import dataclasses
import difflib
import math
import re
from typing import Any, Iterable, List, Mapping, Optional, Tuple

from compile_lua.dmlab.entities import SPAWN_CLASS
from compile_lua.sandbox import Sandbox
from jaxlab.levels.dmlab.catalogue import EXTRA_PICKUP_CHARS, MAP_DIR
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, ParsedMap, parse_text_map

_PAIR = re.compile(r'"([^"\n]*)"[ \t]+"([^"\n]*)"')
#: the classes ``map_maker``'s maker writes for what is not an entity of the level itself
DOOR_CLASS, PLATFORM_CLASSES = "jaxlab_door", ("jaxlab_platform", "jaxlab_glass_column")
#: Quake's entities that are volumes given by their brushes, not points (left out of text levels)
BRUSH_CLASS_PREFIXES = ("trigger_", "func_")


def builtin_map_names() -> list:
    """Names of the maps in ``jaxlab/levels/maps`` (without variations files)."""
    return sorted(p.stem for p in MAP_DIR.glob("*.txt") if not p.stem.endswith(".variations"))


def _decoded(display: str, data: bytes) -> str:
    """``data`` as UTF-8 text; ValueError naming the map file and the byte offset when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"map file {display} is not UTF-8 text (byte {err.start}: "
                         f"{data[err.start:err.start + 1]!r})") from None


def parse_map(name: str, script: str, made: Optional[Mapping[str, Any]], sandbox: Sandbox,
              made_names: Iterable[str] = ()) -> ParsedMap:
    """Parse the map ``name`` returned by ``nextMap`` of ``script``.

    ``made`` is the ``make_map`` record of that name ({entityLayer,
    variationsLayer, pickups}) or None, in which case ``name`` must name a
    map file, read through the script's ``sandbox`` (see the module
    docstring). Raises ValueError (with
    close names) for an unknown map and MapError (line:column within the
    map) for a malformed one.
    """
    if made is not None and made.get("kind") == "text":
        return text_level(name, script, made)
    if made is not None:
        text, variations = made["entityLayer"], made.get("variationsLayer")
        legend = dict(made.get("pickups") or {})
        return parse_text_map(text, variations, pickups=legend, source=f"{script} (map {name!r})",
                              require_spawn=False, check_pickup_names=False)
    found = sandbox.read_data_file(f"{name}.txt", [MAP_DIR])
    if found is None:
        known = sorted(set(made_names) | set(builtin_map_names()))
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"nextMap returned {name!r}, which is neither a map made with make_map.makeMap "
                         f"nor a map file <name>.txt in the script's folder, the levels folder or the "
                         f"built-in maps{hint}")
    display, data = found
    variations = sandbox.read_data_file(f"{name}.variations.txt", [MAP_DIR])
    return parse_text_map(_decoded(display, data),
                          _decoded(*variations) if variations is not None else None,
                          pickups=dict(EXTRA_PICKUP_CHARS), source=display, require_spawn=False,
                          check_pickup_names=False)


def entity_fields(text: str) -> List[dict]:
    """The entities of Quake map entity text (``{`` ``"key" "value"`` lines ``}``), as dicts of strings; an
    entity's brushes (``{`` plane lines ``}`` within it, e.g. a trigger's volume) are skipped. ValueError when
    a brace is left open or a line is neither a brace nor a key-value pair."""
    entities, current, in_brush = [], None, False
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("//"):
            continue
        if in_brush:
            in_brush = line != "}"
        elif line == "{" and current is None:
            current = {}
        elif line == "{":
            in_brush = True
        elif line == "}" and current is not None:
            entities.append(current)
            current = None
        elif current is not None and _PAIR.fullmatch(line):
            key, value = _PAIR.fullmatch(line).groups()
            current[key] = value
        else:
            raise ValueError(f"entity text line {number} is not '{{', '}}' or a \"key\" \"value\" pair: {line[:80]!r}")
    if current is not None or in_brush:
        raise ValueError("entity text ends inside an entity (a '{' without its '}')")
    return entities


def _cell_of(fields: Mapping[str, str], rows: int, cols: int, cell: float) -> Tuple[int, int]:
    """(row, column) of an entity's origin on a text level of ``rows`` x ``cols`` cells of ``cell`` units."""
    try:
        x, y = (float(v) for v in fields["origin"].split()[:2])
    except (KeyError, ValueError):
        raise ValueError(f"entity {fields.get('classname')!r} has no origin \"x y z\"") from None
    row, col = rows - 1 - math.floor(y / cell), math.floor(x / cell)
    if not (0 <= row < rows and 0 <= col < cols):
        raise ValueError(f"entity {fields.get('classname')!r} at {fields['origin']!r} lies outside the "
                         f"{rows} x {cols} map")
    return row, col


def text_level(name: str, script: str, made: Mapping[str, Any]) -> ParsedMap:
    """The ParsedMap of a text level recorded by ``map_maker:mapFromTextLevel`` (its cleaned entity layer:
    walls, floor and the cells left to their defaults, 'P', 'I' and 'H'; its entity strings: spawn points,
    pickups and doors placed at the cells of their origins). As in DMLab, the level's edge is walled: a
    map whose border is not all walls gets a border of wall cells (one row and column each side), which
    moves its world positions by one cell (+100 units in x and y) against DMLab's. Raises ValueError
    (MapError for the layer)."""
    lines = made["entityLayer"].split("\n")
    width = max((len(line) for line in lines), default=0)
    lines = [line.ljust(width, "*") for line in lines]
    edge = lines[0] + lines[-1] + "".join(line[0] + line[-1] for line in lines) if lines and width else ""
    pad = int(bool(edge.strip("*")))
    variations = made.get("variationsLayer")
    if pad:
        lines = ["*" * (width + 2)] + [f"*{line}*" for line in lines] + ["*" * (width + 2)]
        if variations is not None:
            variations = "\n".join(["."] + ["." + line for line in variations.split("\n") if line])
    parsed = parse_text_map("\n".join(lines), variations, pickups={}, source=f"{script} (map {name!r})",
                            require_spawn=False, check_pickup_names=False)
    rows, cols = len(lines) - 2 * pad, width
    cell = float(made.get("cellSize") or 100.0)
    cells, spawns, pickups = parsed.cells.copy(), list(parsed.spawns), []
    for text in made.get("entities") or []:
        for fields in entity_fields(str(text)):
            cls = fields.get("classname", "")
            if "origin" not in fields and cls.startswith(BRUSH_CLASS_PREFIXES):
                continue   # a volume (a trigger's, a mover's) drawn by its brushes: not built from text levels
            row, col = (v + pad for v in _cell_of(fields, rows, cols, cell))
            if cls in PLATFORM_CLASSES:
                raise ValueError(f"map {name!r}: platforms and glass columns (addPlatform, addGlassColumn) are "
                                 "not built from text levels; jaxlab's skymaze levels have them")
            if cls == DOOR_CLASS:
                cells[row, col] = CELL_DOOR_I if fields.get("direction") == "I" else CELL_DOOR_H
            elif cls == SPAWN_CLASS:
                spawns.append((row, col))
            elif cls:
                if cells[row, col] != CELL_FLOOR:
                    raise ValueError(f"map {name!r}: entity {cls!r} stands in a wall or door cell ({row}, {col})")
                pickups.append((row, col, cls))
            else:
                raise ValueError(f"map {name!r}: an entity without a classname")
    return dataclasses.replace(parsed, cells=cells, spawns=tuple(spawns), pickups=tuple(pickups))
