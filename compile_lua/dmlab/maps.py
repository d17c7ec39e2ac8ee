"""The map a script's ``nextMap`` names: one made with ``common.make_map`` or ``dmlab.system.map_maker``,
a text map file, or the ``.map`` source of one of DeepMind Lab's maps.

A name that is not a made map is looked up, through
:meth:`compile_lua.sandbox.Sandbox.read_data_file` (only plain names, only
inside those folders after symlinks, every file read recorded), as
``<name>.txt`` (and its optional ``<name>.variations.txt``) in the script's
folder and the levels folder; then as ``<name>.map`` in the
``assets/maps/src`` folder of a DeepMind Lab checkout whose ``game_scripts``
folder is the levels folder (its parent holds ``assets/maps/src``), converted
by :mod:`jaxlab.levels.dmlab.quake_layout` (files over
:data:`~jaxlab.levels.dmlab.quake_map.MAX_MAP_BYTES` refused); then as
``<name>.txt`` among the built-in maps (``jaxlab/levels/dmlab/maps``, whose
nav mazes stand in for DeepMind Lab's when no checkout is given). DeepMind Lab's natlab
maps, which it has only as built BSP files, get jaxlab's natlab terrain
(:mod:`compile_lua.dmlab.terrain_maps`); a name of another map DeepMind Lab
has only as a built BSP file gets a message saying so; any other name gets
one message, whether or not a file of that name exists elsewhere.
"""
from __future__ import annotations

import dataclasses
import difflib
import hashlib
import math
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

import numpy as np

from compile_lua.dmlab.entities import is_spawn
from compile_lua.dmlab.terrain_maps import terrain_map
from compile_lua.sandbox import Sandbox
from jaxlab.levels.dmlab.catalogue import EXTRA_PICKUP_CHARS, MAP_DIR
from jaxlab.levels.dmlab.heights import HEIGHT_CELLS_PER_CELL, NO_FLOOR
from jaxlab.levels.dmlab.map_parser import (CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, CELL_WALL, ParsedMap,
                                            decode_map_text, parse_text_map)
from jaxlab.levels.dmlab.quake_layout import ConvertedMap, convert_quake_map
from jaxlab.levels.dmlab.quake_map import MAX_MAP_BYTES, parse_quake_map
from jaxlab.levels.dmlab.units import CELL_SIZE

_PAIR = re.compile(r'"([^"\n]*)"[ \t]+"([^"\n]*)"')
#: the classes ``map_maker``'s maker writes for what is not an entity of the level itself
DOOR_CLASS = "jaxlab_door"
#: cells of height per platform height step (DeepMind Lab's text levels)
PLATFORM_HEIGHT_CELLS = 0.2
#: Quake's entities that are volumes given by their brushes, not points (left out of text levels)
BRUSH_CLASS_PREFIXES = ("trigger_", "func_")
#: a DeepMind Lab checkout's map sources and built maps, from the parent of its game_scripts folder
MAP_SOURCES, BUILT_MAPS = Path("assets", "maps", "src"), Path("assets", "maps", "built")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


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


def checkout_folders(sandbox: Sandbox) -> List[Path]:
    """The parents of the sandbox's search folders that are DeepMind Lab checkouts (folders holding
    ``assets/maps/src``), symlinks resolved: the search folder is then the checkout's ``game_scripts``."""
    parents = [Path(folder).resolve().parent for folder in sandbox.search_dirs]
    return [parent for parent in parents if (parent / MAP_SOURCES).is_dir()]


_CONVERTED: Dict[Tuple[str, str], ConvertedMap] = {}   # (display path, sha256) -> its conversion
_CONVERTED_KEPT = 8


def _converted(display: str, data: bytes) -> ConvertedMap:
    """The ConvertedMap of a ``.map`` file's bytes, kept (the last few) for the episodes that load it again."""
    key = (display, hashlib.sha256(data).hexdigest())
    if key not in _CONVERTED:
        converted = convert_quake_map(parse_quake_map(decode_map_text(data, display), display))
        if len(_CONVERTED) >= _CONVERTED_KEPT:
            del _CONVERTED[next(iter(_CONVERTED))]
        _CONVERTED[key] = converted
    return _CONVERTED[key]


def map_source(name: str, sandbox: Sandbox) -> Optional[ConvertedMap]:
    """The ConvertedMap of ``<name>.map`` in a checkout's ``assets/maps/src`` (:func:`checkout_folders`),
    None when there is none. Raises MapError for a malformed file, UnconvertibleMap for one jaxlab cannot
    hold, ValueError for one over MAX_MAP_BYTES."""
    for checkout in checkout_folders(sandbox):
        found = sandbox.read_data_file(f"{name}.map", [checkout / MAP_SOURCES], own_folders=False,
                                       max_bytes=MAX_MAP_BYTES)
        if found is not None:
            return _converted(*found)
    return None


def built_only(name: str, sandbox: Sandbox) -> bool:
    """Whether ``name`` is a DeepMind Lab map that exists only as a built BSP file: a plain name with
    ``assets/maps/built/<name>.bsp`` in a checkout (DeepMind Lab's natlab maps get jaxlab's terrain first,
    :mod:`compile_lua.dmlab.terrain_maps`)."""
    if not _PLAIN_NAME.fullmatch(name):
        return False
    for checkout in checkout_folders(sandbox):
        built = (checkout / BUILT_MAPS).resolve()
        path = built / f"{name}.bsp"
        if path.is_file() and path.resolve().is_relative_to(built):
            return True
    return False


def parse_map(name: str, script: str, made: Optional[Mapping[str, Any]], sandbox: Sandbox,
              made_names: Iterable[str] = ()) -> Union[ParsedMap, ConvertedMap]:
    """Parse the map ``name`` returned by ``nextMap`` of ``script``.

    ``made`` is the ``make_map`` record of that name ({entityLayer,
    variationsLayer, pickups}) or None, in which case ``name`` must name a
    map file, read through the script's ``sandbox`` (see the module
    docstring). Returns a ParsedMap, or a ConvertedMap for a ``.map`` source (its entities keep
    DeepMind Lab's key-values and coordinates). Raises ValueError (with
    close names) for an unknown map, MapError (line:column within the
    map) for a malformed one and UnconvertibleMap for a ``.map`` jaxlab cannot hold.
    """
    if made is not None and made.get("kind") == "text":
        return text_level(name, script, made)
    if made is not None:
        text, variations = made["entityLayer"], made.get("variationsLayer")
        legend = dict(made.get("pickups") or {})
        return parse_text_map(text, variations, pickups=legend, source=f"{script} (map {name!r})",
                              require_spawn=False, check_pickup_names=False)
    found = sandbox.read_data_file(f"{name}.txt")
    if found is None:
        converted = map_source(name, sandbox)
        if converted is not None:
            return converted
        found = sandbox.read_data_file(f"{name}.txt", [MAP_DIR], own_folders=False)
    if found is None:
        stand_in = terrain_map(name)
        if stand_in is not None:
            return stand_in
    if found is None and built_only(name, sandbox):
        raise ValueError(f"nextMap returned {name!r}, which exists in DeepMind Lab only as a compiled BSP file "
                         f"(assets/maps/built/{name}.bsp); no source to convert (jaxlab reads the .map sources "
                         f"in a checkout's assets/maps/src)")
    if found is None:
        known = sorted(set(made_names) | set(builtin_map_names()))
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"nextMap returned {name!r}, which is neither a map made with make_map.makeMap "
                         f"nor a map file <name>.txt in the script's folder, the levels folder or the "
                         f"built-in maps, nor a map source <name>.map in the assets/maps/src of a DeepMind Lab "
                         f"checkout whose game_scripts folder is the levels folder{hint}")
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
            if cls == DOOR_CLASS:
                cells[row, col] = CELL_DOOR_I if fields.get("direction") == "I" else CELL_DOOR_H
            elif is_spawn(fields):
                spawns.append((row, col))
            elif cls:
                if cells[row, col] != CELL_FLOOR:
                    raise ValueError(f"map {name!r}: entity {cls!r} stands in a wall or door cell ({row}, {col})")
                pickups.append((row, col, cls))
            else:
                raise ValueError(f"map {name!r}: an entity without a classname")
    floor_z = _platform_ground(name, made, cells, pad)
    return dataclasses.replace(parsed, cells=cells, spawns=tuple(spawns), pickups=tuple(pickups), floor_z=floor_z)


def _platform_ground(name: str, made: Mapping[str, Any], cells: np.ndarray, pad: int) -> Optional[np.ndarray]:
    """The ground of a text level's platforms (``addPlatform{i, j, height}``: a top at 0.2 height cells,
    DeepMind Lab's scale) as float32[2 R, 2 C] heights in units (``NO_FLOOR`` off the platforms), or None
    when it has none. ``cells`` (int8[R, C], padded by ``pad``) is updated: a platform's cell is floor; every
    other floor cell is solid, a glass column's (``addGlassColumn``) or the sky's, which jaxlab's player
    cannot fall into."""
    platforms = [tuple(p) for p in made.get("platforms") or []]
    if not platforms:
        return None
    rows, cols = cells.shape
    z = np.full((rows, cols), NO_FLOOR, np.float32)
    for i, j, height in platforms:
        row, col = int(i) + pad, int(j) + pad
        if not (0 <= row < rows and 0 <= col < cols):
            raise ValueError(f"map {name!r}: the platform at ({i}, {j}) lies outside the map")
        z[row, col] = PLATFORM_HEIGHT_CELLS * float(height) * CELL_SIZE
    cells[(z == NO_FLOOR) & (cells == CELL_FLOOR)] = CELL_WALL
    cells[z != NO_FLOOR] = CELL_FLOOR
    return np.repeat(np.repeat(z, HEIGHT_CELLS_PER_CELL, axis=0), HEIGHT_CELLS_PER_CELL, axis=1)
