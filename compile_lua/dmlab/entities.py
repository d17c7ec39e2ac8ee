"""Map entities as DMLab spawn vars, and pickup classes as jaxlab pickup data.

A text map's ``P`` cells become ``info_player_start`` entities and its pickup
characters become entities of their class, each with Quake-style string spawn
vars: ``classname``, ``origin`` ("x y z" in game units, y up) and ``id`` (1, 2,
… in reading order). Its doors (``I``, ``H``) come in reading order among them
as DMLab's ``func_door`` entities: ``targetname`` ``door_<column>_<row from the
bottom>`` (the name the door's triggers pass to ``canTrigger``/``trigger``),
``angle`` 90 or 0, and no ``id`` (the other entities keep theirs). ``api:updateSpawnVars``
may rewrite them; the compiler reads them back with ``position`` (a door
removed there leaves its cell open floor).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

import numpy as np

from jaxlab.levels.dmlab.level import cell_center
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, ParsedMap
from jaxlab.levels.dmlab.object_catalogue import SHUT_LOCK, SWITCH_LOCK
from jaxlab.levels.dmlab.quake_layout import START_OPEN, ConvertedMap
from jaxlab.levels.dmlab.quake_map import SPAWN_CLASSES

SPAWN_CLASS = "info_player_start"
DOOR_ENTITY = "func_door"   # a text map's door, as DMLab's text levels make it
DOOR_CELLS = (CELL_DOOR_I, CELL_DOOR_H)
PICKUP_HEIGHT = 30.0            # origin z of a pickup (units over the floor)
TYPE_NAMES = {0: "INVALID", 1: "WEAPON", 2: "AMMO", 3: "ARMOR", 4: "HEALTH", 5: "POWER_UP",
              6: "HOLDABLE", 7: "PERSISTANT_POWERUP", 8: "TEAM", 9: "REWARD", 10: "GOAL"}
REWARD_TYPE, GOAL_TYPE = 9, 10


def map_entities(parsed: ParsedMap) -> List[Tuple[Optional[Tuple[int, int]], Dict[str, str]]]:
    """The spawn vars of every entity of ``parsed`` in reading order (row-major), each with the (row, col)
    of its door for a door (``func_door``), else None.

    Spawn vars are dicts of strings: classname, origin "x y z", id "1".."n" but for doors, angle "0" for
    spawn points, targetname and angle for doors (see the module).
    """
    rows = parsed.shape[0]
    doors = [(int(r), int(c), DOOR_ENTITY) for r, c in zip(*np.nonzero(np.isin(parsed.cells, DOOR_CELLS)))]
    found = sorted([(r, c, SPAWN_CLASS) for r, c in parsed.spawns] + list(parsed.pickups) + doors,
                   key=lambda e: (e[0], e[1]))
    entities, count = [], 0
    for r, c, cls in found:
        x, y = cell_center(r, c, rows)
        if cls == DOOR_ENTITY:
            angle = "90" if parsed.cells[r, c] == CELL_DOOR_I else "0"
            entities.append(((r, c), {"classname": cls, "origin": f"{x:g} {y:g} 0", "angle": angle,
                                      "targetname": f"door_{c}_{rows - 1 - r}"}))
            continue
        count += 1
        z = 0.0 if cls == SPAWN_CLASS else PICKUP_HEIGHT
        spawn_vars = {"classname": cls, "origin": f"{x:g} {y:g} {z:g}", "id": str(count)}
        if cls == SPAWN_CLASS:
            spawn_vars["angle"] = "0"
        entities.append((None, spawn_vars))
    return entities


def extra_entities(answer: Any) -> List[Dict[str, str]]:
    """The entities ``api:extraEntities()`` answered (``answer`` as Python: None, or a list of tables), as
    spawn vars (dicts of strings): DMLab adds them to the map after every ``updateSpawnVars``, and they
    skip it. nil or an empty table adds none. ValueError for anything but a list of tables whose keys
    and values are strings (a number is taken as Lua writes it), each with a ``classname``."""
    if answer is None or answer == {} or answer == []:
        return []
    if not isinstance(answer, list) or not all(isinstance(e, dict) for e in answer):
        raise ValueError("it must return a list of spawn-var tables (or nil)")
    out = []
    for i, entity in enumerate(answer, 1):
        spawn_vars = {}
        for key, value in entity.items():
            if isinstance(value, bool) or not isinstance(key, str) or not isinstance(value, (str, int, float)):
                raise ValueError(f"entity {i}: spawn var {key!r} = {value!r}; keys and values are strings")
            spawn_vars[key] = value if isinstance(value, str) else f"{value:.14g}"
        if not spawn_vars.get("classname"):
            raise ValueError(f"entity {i} has no classname")
        out.append(spawn_vars)
    return out


def open_removed_doors(parsed: ParsedMap, kept: Set[Tuple[int, int]]) -> ParsedMap:
    """``parsed`` with the door cells not in ``kept`` (their entities removed by updateSpawnVars) open floor."""
    removed = np.isin(parsed.cells, DOOR_CELLS)
    for r, c in kept:
        removed[r, c] = False
    return dataclasses.replace(parsed, cells=np.where(removed, CELL_FLOOR, parsed.cells).astype(parsed.cells.dtype))


def source_entities(converted: ConvertedMap) -> List[Dict[str, str]]:
    """The spawn vars of every entity of a converted ``.map`` (its key-values, origins in DeepMind Lab's
    units) in file order, each with an ``id`` ("1".."n" by that order) unless the file gives one."""
    return [{**fields, "id": fields.get("id", str(i + 1))} for i, fields in enumerate(converted.spawn_vars)]


def quake_doors(parsed: ParsedMap, doors, pickup_targets: Set[str]) -> Tuple[ParsedMap, Dict, Set[str]]:
    """A converted ``.map``'s doors in one episode's cells. ``doors``: (row, col, spawn vars after
    updateSpawnVars) of each ``quake_layout.DOOR_CLASS`` entity; ``pickup_targets``: the ``target`` names of
    the episode's pickups (DMLab fires a pickup's target when it is taken). A door that starts open
    (``spawnflags`` bit 1) stays floor; another becomes a door cell ('I' or 'H') whose lock says what opens
    it: a pickup that targets it unlocks it (``SWITCH_LOCK``; that pickup is a switch), one with a
    ``targetname`` nothing opens stays shut (``SHUT_LOCK``), one without opens as the player comes near, as
    Quake's touch doors do. Returns (parsed, {(row, col): lock} of the locked doors, the target names
    the pickups open). ValueError for a ``spawnflags`` that is not a number."""
    cells, locks, opened = parsed.cells.copy(), {}, set()
    for row, col, spawn_vars in doors:
        try:
            flags = int(float(spawn_vars.get("spawnflags") or 0))
        except (TypeError, ValueError):
            raise ValueError(f"a door's spawnflags {spawn_vars.get('spawnflags')!r} is not a number") from None
        if flags & START_OPEN:
            continue
        cells[row, col] = CELL_DOOR_I if spawn_vars.get("direction") == "I" else CELL_DOOR_H
        name = spawn_vars.get("targetname")
        if name and name in pickup_targets:
            locks[(row, col)] = SWITCH_LOCK
            opened.add(name)
        elif name:
            locks[(row, col)] = SHUT_LOCK
    return dataclasses.replace(parsed, cells=cells), locks, opened


def is_spawn(spawn_vars: Mapping[str, object]) -> bool:
    """Whether spawn vars are a spawn point's (``info_player_start`` or Quake III's ``info_player_deathmatch``)."""
    return str(spawn_vars.get("classname", "")) in SPAWN_CLASSES


def position(spawn_vars: Mapping[str, object]) -> Tuple[float, float]:
    """(x, y) in units from a spawn var table's ``origin``; ValueError if malformed."""
    origin = spawn_vars.get("origin")
    try:
        parts = [float(v) for v in str(origin).split()]
    except ValueError:
        parts = []
    if len(parts) not in (2, 3):
        raise ValueError(f"entity {spawn_vars.get('classname')!r} has origin {origin!r}; "
                         "expected \"x y z\" in game units")
    return parts[0], parts[1]


def entity_id(spawn_vars: Mapping[str, object]):
    """The ``id`` passed to canPickup/pickup: a number when it reads as one, else the string."""
    raw = spawn_vars.get("id")
    try:
        number = float(raw)
    except (TypeError, ValueError):
        return raw
    return int(number) if number.is_integer() else number


@dataclasses.dataclass(frozen=True)
class PickupClass:
    """What a pickup class does: its reward, whether it ends the map, its look."""

    class_name: str
    reward: float
    ends_map: bool
    kind: int            # index into PICKUP_TYPES, for the sprite's colour and size
    modelled: bool       # False for types jaxlab does not model (weapons, health, …)


def pickup_class(definition: Mapping[str, object]) -> PickupClass:
    """A PickupClass from a ``createPickup``/``pickups.defaults`` table
    (name, classname, model (or model_name), quantity, type; ``class_name`` the entity's class); ValueError
    unless type and quantity are finite numbers."""
    cls = str(definition.get("class_name", ""))
    try:
        kind_type = int(definition.get("type", REWARD_TYPE))
        quantity = float(definition.get("quantity", 0))
        if not math.isfinite(quantity):
            raise ValueError(quantity)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"pickup {cls!r}: type and quantity must be finite numbers, got "
                         f"{definition.get('type')!r} and {definition.get('quantity')!r}") from None
    modelled = kind_type in (REWARD_TYPE, GOAL_TYPE)
    ends_map = kind_type == GOAL_TYPE
    reward = quantity if modelled else 0.0
    model = str(definition.get("model", definition.get("model_name", "")))
    return PickupClass(cls, reward, ends_map, _look(cls, model, ends_map, reward), modelled)


def _look(cls: str, model: str, ends_map: bool, reward: float) -> int:
    """The PICKUP_TYPES row whose sprite a class borrows: its own name, its
    model's name (``models/mushroom.md3``: ``mushroom``), a word of either
    (``frag_mushroom_desert_01a``: ``mushroom``), else a goal, apple (reward >= 0)
    or lemon (< 0)."""
    stem = model.rsplit("/", 1)[-1].split(".", 1)[0]
    for name in [cls, stem] + cls.split("_") + stem.split("_"):
        if name in PICKUP_INDEX:
            return PICKUP_INDEX[name]
    if ends_map:
        return PICKUP_INDEX["goal"]
    return PICKUP_INDEX["apple_reward" if reward >= 0 else "lemon_reward"]


def type_name(kind_type: Optional[int]) -> str:
    """The DMLab pickups.type name of a number, e.g. 9 -> 'REWARD'."""
    return TYPE_NAMES.get(kind_type, str(kind_type))


def pickup_fields(rows: Sequence[Dict[str, Any]], fps: int) -> Dict[str, np.ndarray]:
    """The Level's pickup arrays from compiled pickup rows (dicts with class,
    pos, reward, ends_map, respawn seconds, takeable); at least one row, padding
    rows invalid; respawn seconds become frames at ``fps``."""
    n = max(len(rows), 1)
    pad = n - len(rows)

    def column(values, dtype, fill):
        return np.asarray(list(values) + [fill] * pad, dtype)

    return {
        "pickup_pos": np.asarray([r["pos"] for r in rows] + [(0.0, 0.0)] * pad, np.float32),
        "pickup_kind": column((r["class"].kind for r in rows), np.int32, 0),
        "pickup_reward": column((r["reward"] for r in rows), np.float32, 0.0),
        "pickup_is_goal": column((r["ends_map"] for r in rows), bool, False),
        "pickup_valid": column((True for _ in rows), bool, False),
        "pickup_follows_goal": np.zeros(n, bool),
        "pickup_respawn_frames": column((round(r["respawn"] * fps) if r["respawn"] > 0 else -1
                                         for r in rows), np.int32, -1),
        "pickup_takeable": column((r["takeable"] for r in rows), bool, False),
        "pickup_spawned_by": column((r.get("spawned_by", -1) for r in rows), np.int32, -1),
    }
