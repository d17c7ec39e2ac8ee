"""What the arrays of a bank file must hold: one table of per-field rules per level type, and the
cross-field checks of first-person levels. numpy only, on the host, before anything reaches a kernel.

A level type's arrays are checked in three passes, each ending at the first problem:

1. structure: every field has the dtype and rank of the type's ``bank_example()``, dict arrays
   have an allowed dtype (``BANK_DICT_DTYPES``), and all share one number of levels N >= 1;
2. the field table (``RULES``): per-level shapes whose named axes agree across fields (``S``
   spawn points in ``spawn_pos`` [S, 2], ``spawn_yaw`` [S] and ``spawn_allowed`` [K, S]), with
   minimum sizes (``MIN_SIZES``); float arrays finite (NaN only where a rule allows it); values
   inside a set of codes or inclusive bounds, which may be one of the bank's sizes (an index into
   the doors is at most D - 1);
3. cross-field checks (``CROSS_CHECKS``): for first-person levels, the grid is enclosed by walls,
   every ``door_index`` names a valid door whose ``door_cell`` is that door cell, world points lie
   inside the map, every valid goal choice allows a spawn point, and the allowed spawn points and
   the teleport destinations in use are not NaN and lie in floor cells (a spawn slot no goal
   choice allows may be NaN: generated levels mark unused candidates so).

Each problem is one line that names the array as it is stored in the file (``level/<field>`` or
``<field>/<key>``) and the level it was found in, e.g. ``level/pickup_reward: NaN at level 0,
index 2``; ``jaxlab.bank_file`` puts the file's path in front.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Dict, FrozenSet, Iterator, NamedTuple, Optional, Tuple, Union

import numpy as np

from jaxlab.levels.dmlab.level import CELL_SIZE, SWITCH_LOCK
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.object_catalogue import NUM_KEY_COLOURS
from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES
from jaxlab.render.first_person.textures import NUM_LEVEL_THEMES, NUM_THEMES

ARRAY_PREFIX = "level/"
#: the largest |reward| a level may pay per pickup or event, so that a frame's sum stays finite
REWARD_LIMIT = 1e9
#: the longest episode (and hidden-platform wait) in seconds: 1e6 s is 6e7 frames at 60 fps,
#: well inside the int32 frame counters
MAX_SECONDS = 1e6
#: the largest Unicode code point (``Level.text_chars``)
MAX_CODE_POINT = 0x10FFFF
DOOR_CODES = (CELL_DOOR_I, CELL_DOOR_H)
GRID_CHAR_LIMIT = 127   # GridSpec.char_map keys are single ASCII characters


class Size(NamedTuple):
    """A bound given by one of the bank's sizes: the length of axis ``dim`` plus ``offset``."""

    dim: str
    offset: int = 0


Bound = Union[None, float, Size]


@dataclasses.dataclass(frozen=True)
class Rule:
    """What one field's arrays must hold.

    dims: the per-level shape (without the bank axis), one entry per axis: a name (axes of one name
      have one length in the whole bank) or a fixed length; None: any shape (dict arrays).
    low, high: inclusive bounds on every value (a number, a ``Size``, or None: unbounded).
    positive: every value is > 0.
    values: the allowed values (codes), or None.
    nan: NaN is allowed (float arrays are otherwise finite; infinities never are).
    broadcast: each named axis may instead have length 1 (the kernel uses the field elementwise
      with its fellows, so it broadcasts; compiled Lua levels store the pickups' key, switch,
      teleport and count columns so when they have none).
    """

    dims: Optional[Tuple[Union[str, int], ...]]
    low: Bound = None
    high: Bound = None
    positive: bool = False
    values: Optional[FrozenSet[int]] = None
    nan: bool = False
    broadcast: bool = False


def _reward(dims: Tuple[str, ...] = ()) -> Rule:
    """A reward: finite and at most REWARD_LIMIT in size."""
    return Rule(dims, low=-REWARD_LIMIT, high=REWARD_LIMIT)


#: Shapes (Hm×Wm grid, D doors, N pickups, K goal choices, S spawn points, M screen messages of L
#: characters, B bots, T teleport destinations) and ranges of a first-person ``Level``'s fields;
#: see ``jaxlab.levels.dmlab.level.Level`` for their meaning.
LEVEL_RULES: Dict[str, Rule] = {
    "cells": Rule(("Hm", "Wm"), values=frozenset((CELL_FLOOR, CELL_WALL) + DOOR_CODES)),
    "variation": Rule(("Hm", "Wm"), low=0, high=NUM_THEMES - 1),
    "door_index": Rule(("Hm", "Wm"), low=-1, high=Size("D", -1)),
    "door_cell": Rule(("D", 2)),
    "door_valid": Rule(("D",)),
    "rows": Rule((), low=1, high=Size("Hm")),
    "pickup_pos": Rule(("N", 2)),
    "pickup_kind": Rule(("N",), low=0, high=len(PICKUP_TYPES) - 1),
    "pickup_reward": _reward(("N",)),
    "pickup_is_goal": Rule(("N",)),
    "pickup_valid": Rule(("N",)),
    "pickup_follows_goal": Rule(("N",)),
    "pickup_respawn_frames": Rule(("N",), low=-1),
    "goal_choice_pos": Rule(("K", 2)),
    "goal_choice_valid": Rule(("K",)),
    "spawn_pos": Rule(("S", 2), nan=True),   # NaN: a slot no goal choice allows (see _spawns_open)
    "spawn_allowed": Rule(("K", "S")),
    "episode_seconds": Rule((), positive=True, high=MAX_SECONDS),
    "pickup_takeable": Rule(("N",)),
    "custom_obs": Rule(None),
    "text_chars": Rule(("M", "L"), low=0, high=MAX_CODE_POINT),
    "text_pos": Rule(("M", 2)),
    "text_align": Rule(("M",), values=frozenset((0, 1, 2))),
    "text_valid": Rule(("M",)),
    "bot_skill": Rule(("B",)),
    "bot_valid": Rule(("B",)),
    "door_lock": Rule(("D",), low=SWITCH_LOCK, high=NUM_KEY_COLOURS),
    "unlock_reward": _reward(),
    "pickup_key": Rule(("N",), low=0, high=NUM_KEY_COLOURS, broadcast=True),
    "pickup_switch": Rule(("N",), broadcast=True),
    "switch_theme": Rule((), low=0, high=NUM_LEVEL_THEMES - 1),
    "pickup_teleport": Rule(("N",), low=-1, high=Size("T", -1), broadcast=True),
    "teleport_pos": Rule(("T", 2)),
    "teleport_yaw": Rule(("T",)),
    "pickup_counts": Rule(("N",), broadcast=True),
    "end_after_pickups": Rule((), low=0, high=Size("N")),
    "platform_pos": Rule((2,)),
    "platform_radius": Rule((), low=0.0),
    "platform_seconds": Rule((), low=0.0, high=MAX_SECONDS),
    "platform_reward": _reward(),
    "spawn_yaw": Rule(("S",), nan=True),
    "theme": Rule((), low=0, high=NUM_LEVEL_THEMES - 1),
}

#: a grid ``GridLayout``: an H×W map of ASCII characters (0 is padding: an empty cell)
GRID_LAYOUT_RULES: Dict[str, Rule] = {"chars": Rule(("H", "W"), low=0, high=GRID_CHAR_LIMIT)}

#: level type name -> its field table
RULES: Dict[str, Dict[str, Rule]] = {"Level": LEVEL_RULES, "GridLayout": GRID_LAYOUT_RULES}
#: level type name -> the smallest length of each named axis (others: 0); a kernel indexes into
#: these arrays, so they may not be empty
MIN_SIZES: Dict[str, Dict[str, int]] = {
    "Level": {"Hm": 1, "Wm": 1, "D": 1, "N": 1, "K": 1, "S": 1, "T": 1},
    "GridLayout": {"H": 1, "W": 1},
}

Fields = Dict[str, np.ndarray]
Dicts = Dict[str, Dict[str, np.ndarray]]


@functools.lru_cache(maxsize=None)
def layout(level_type: type) -> Tuple[Dict[str, Tuple[np.dtype, int]], Dict[str, Tuple[np.dtype, ...]]]:
    """(array field -> (dtype, rank with the bank axis), dict field -> allowed dtypes) of ``level_type``,
    from its ``bank_example()`` and ``BANK_DICT_DTYPES``; TypeError for a type that cannot be banked on
    disk (no ``bank_example`` or no table in RULES)."""
    if not hasattr(level_type, "bank_example"):
        raise TypeError(f"{level_type.__name__} levels cannot be saved as a bank file (no bank_example(); "
                        "text games are saved as TextWorld JSON with Game.save)")
    if level_type.__name__ not in RULES:
        raise TypeError(f"{level_type.__name__} levels cannot be saved as a bank file (no rules in "
                        "jaxlab.bank_checks.RULES)")
    example = level_type.bank_example()
    dict_dtypes = getattr(level_type, "BANK_DICT_DTYPES", {})
    arrays = {}
    for name in level_type.__dataclass_fields__:
        if name not in dict_dtypes:
            value = np.asarray(getattr(example, name))
            arrays[name] = (value.dtype, value.ndim + 1)
    return arrays, {name: tuple(np.dtype(d) for d in dtypes) for name, dtypes in dict_dtypes.items()}


def first_problem(level_type: type, fields: Fields, dicts: Dicts) -> Optional[str]:
    """The first problem of a bank's arrays as one line (see the module docstring), or None.

    fields: array field -> [N, ...] array, every field of ``layout(level_type)`` present;
    dicts: dict field -> {key: [N, ...] array}.
    """
    passes = (_structure_problems(level_type, fields, dicts), _rule_problems(level_type, fields, dicts),
              *(check(fields) for check in CROSS_CHECKS.get(level_type.__name__, ())))
    for problems in passes:
        problem = next(problems, None)
        if problem is not None:
            return problem
    return None


def field_problem(level_type: type, name: str, a: np.ndarray) -> Optional[str]:
    """The problem of array field ``name``'s array ``a`` ([N, ...]) if it lacks the dtype or rank of
    ``level_type``'s example, else None."""
    dtype, rank = layout(level_type)[0][name]
    if a.dtype != dtype or a.ndim != rank:
        return (f"{ARRAY_PREFIX}{name}: field {name!r} is {a.dtype}[{a.ndim}-d], a {level_type.__name__} "
                f"bank needs {dtype}[{rank}-d]")
    return None


def _structure_problems(level_type: type, fields: Fields, dicts: Dicts) -> Iterator[str]:
    """Dtype and rank of every array, and one number of levels N >= 1."""
    for name, a in fields.items():
        problem = field_problem(level_type, name, a)
        if problem:
            yield problem
    dict_dtypes = layout(level_type)[1]
    for field, members in dicts.items():
        allowed = " or ".join(str(d) for d in dict_dtypes[field])
        for key, a in members.items():
            if a.dtype not in dict_dtypes[field] or a.ndim < 1:
                yield (f"{field}/{key}: {field} {key!r} is {a.dtype}[{a.ndim}-d], a {level_type.__name__} "
                       f"bank needs {allowed} with the bank axis")
    sizes = {a.shape[0] for a in list(fields.values()) + [a for d in dicts.values() for a in d.values()]}
    if len(sizes) != 1 or 0 in sizes:
        yield f"bank file arrays disagree on the number of levels ({sorted(sizes)})"


def _rule_problems(level_type: type, fields: Fields, dicts: Dicts) -> Iterator[str]:
    """Per-level shapes, minimum sizes, finiteness and value ranges of ``RULES[level_type]``."""
    rules = RULES[level_type.__name__]
    minimum = MIN_SIZES.get(level_type.__name__, {})
    sizes: Dict[str, Tuple[int, str]] = {}   # axis name -> (length, the member that set it)
    members = [(ARRAY_PREFIX + name, a, rules[name]) for name, a in fields.items()]
    members += [(f"{field}/{key}", a, rules[field]) for field, d in dicts.items() for key, a in sorted(d.items())]
    for member, a, rule in members:
        for axis, (dim, length) in enumerate(zip(rule.dims or (), a.shape[1:])):
            shape = f"per-level shape {list(a.shape[1:])}"
            if rule.broadcast and length == 1:
                continue
            if isinstance(dim, int) and length != dim:
                yield f"{member}: {shape}, axis {axis} must have length {dim}"
            elif isinstance(dim, str) and dim in sizes and sizes[dim][0] != length:
                yield f"{member}: {shape}: {dim} = {length} here but {sizes[dim][0]} in {sizes[dim][1]}"
            elif isinstance(dim, str) and length < minimum.get(dim, 0):
                yield f"{member}: {shape}: {dim} = {length}, a bank needs at least {minimum[dim]}"
            sizes.setdefault(dim, (length, member))
    lengths = {dim: length for dim, (length, _) in sizes.items()}
    for member, a, rule in members:
        problem = _value_problem(member, a, rule, lengths)
        if problem:
            yield problem


def _where(a: np.ndarray, bad: np.ndarray) -> str:
    """'level i' (and ', index (...)' inside a level) of the first True of ``bad`` (same shape as ``a``)."""
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    inside = f", index {first[1:] if len(first) > 2 else first[1]}" if len(first) > 1 else ""
    return f"level {first[0]}{inside}"


def _first_value(a: np.ndarray, bad: np.ndarray) -> str:
    """The first value of ``a`` where ``bad``, as text (NaN, inf, -inf or the number)."""
    value = a[tuple(np.argwhere(bad)[0])].item()
    return "NaN" if value != value else repr(value)


def _bound(bound: Bound, sizes: Dict[str, int]) -> Optional[float]:
    """A rule's bound as a number (a ``Size`` resolved against the bank's axis lengths)."""
    return sizes[bound.dim] + bound.offset if isinstance(bound, Size) else bound


def _value_problem(member: str, a: np.ndarray, rule: Rule, sizes: Dict[str, int]) -> Optional[str]:
    """The first value of ``a`` (one field's [N, ...] array) that breaks ``rule``, as a line."""
    if a.dtype.kind == "f":
        bad = np.isinf(a) if rule.nan else ~np.isfinite(a)
        if bad.any():
            return f"{member}: {_first_value(a, bad)} at {_where(a, bad)}"
    if rule.values is not None:
        bad = ~np.isin(a, sorted(rule.values))
        if bad.any():
            return (f"{member}: {_first_value(a, bad)} at {_where(a, bad)} is not one of "
                    f"{sorted(rule.values)}")
    if rule.positive:
        bad = ~(a > 0)
        if bad.any():
            return f"{member}: {_first_value(a, bad)} at {_where(a, bad)} is not positive"
    low, high = _bound(rule.low, sizes), _bound(rule.high, sizes)
    bad = np.zeros(a.shape, bool)
    if low is not None:
        bad |= a < low
    if high is not None:
        bad |= a > high
    if bad.any():
        span = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        return f"{member}: {_first_value(a, bad)} at {_where(a, bad)} is outside {span}"
    return None


# ----- first-person cross-field checks (fields: every Level array, [N, ...]) -----

def _enclosed(f: Fields) -> Iterator[str]:
    """The grid's outer cells are walls: the kernel clips positions to the grid and the renderer's
    rays must end on a wall."""
    cells = f["cells"]
    border = np.ones(cells.shape[1:], bool)
    border[1:-1, 1:-1] = False
    bad = border[None] & (cells != CELL_WALL)
    if bad.any():
        i, r, c = np.argwhere(bad)[0]
        yield (f"{ARRAY_PREFIX}cells: level {i} is not enclosed: cell ({r}, {c}) on the grid's border "
               f"is {cells[i, r, c]}, not a wall ({CELL_WALL})")


def _doors_point_at_doors(f: Fields) -> Iterator[str]:
    """Every ``door_index`` >= 0 sits on a door cell and names a valid door whose ``door_cell`` is that cell
    (a closed door makes its cell solid: an index elsewhere walls a floor cell in)."""
    level, row, col = np.nonzero(f["door_index"] >= 0)
    door = f["door_index"][level, row, col]
    at = f["door_cell"][level, door]
    problems = (
        (~np.isin(f["cells"][level, row, col], DOOR_CODES), "which is not a door cell (cells = {code})"),
        (~f["door_valid"][level, door], "a door that is not valid (door_valid is False)"),
        ((at[:, 0] != row) | (at[:, 1] != col), "whose door_cell is ({at_row}, {at_col})"),
    )
    for bad, reason in problems:
        if bad.any():
            k = int(np.argmax(bad))
            text = reason.format(code=f["cells"][level[k], row[k], col[k]], at_row=at[k, 0], at_col=at[k, 1])
            yield (f"{ARRAY_PREFIX}door_index: level {level[k]}, cell ({row[k]}, {col[k]}) names door "
                   f"{door[k]}, {text}")


#: the world points of a Level ([..., 2] (x, y) units), which must lie inside the map
WORLD_POINTS = ("pickup_pos", "goal_choice_pos", "spawn_pos", "teleport_pos", "platform_pos")


def _points_inside_map(f: Fields) -> Iterator[str]:
    """Every world point lies in [0, 100 Wm] × [0, 100 rows] units (the map's extent)."""
    width = f["cells"].shape[2] * CELL_SIZE
    height = f["rows"].astype(np.float64) * CELL_SIZE
    for name in WORLD_POINTS:
        p = f[name].reshape(len(height), -1, 2)
        top = height[:, None]
        bad = (p[..., 0] < 0) | (p[..., 0] > width) | (p[..., 1] < 0) | (p[..., 1] > top)
        if bad.any():
            i, k = np.argwhere(bad)[0]
            yield (f"{ARRAY_PREFIX}{name}: (x, y) = ({p[i, k, 0]:g}, {p[i, k, 1]:g}) at level {i}, index {k} is "
                   f"outside the map's [0, {width:g}] × [0, {height[i]:g}] units")


def _floor_problem(f: Fields, name: str, points: np.ndarray, used: np.ndarray, what: str) -> Optional[str]:
    """The first ``used`` point (float32[N, P, 2] units, used bool[N, P]) that is NaN or not in a floor cell."""
    nan = used & np.isnan(points).any(axis=-1)
    if nan.any():
        i, k = np.argwhere(nan)[0]
        return f"{ARRAY_PREFIX}{name}: NaN at level {i}, index {k} ({what} in use)"
    cells = f["cells"]
    hm, wm = cells.shape[1:]
    points = np.where(used[..., None], points, 0.0)
    col = np.floor(points[..., 0] / CELL_SIZE).astype(np.int64)
    row = f["rows"][:, None].astype(np.int64) - 1 - np.floor(points[..., 1] / CELL_SIZE).astype(np.int64)
    inside = (row >= 0) & (row < hm) & (col >= 0) & (col < wm)
    level = np.arange(len(cells))[:, None]
    code = np.where(inside, cells[level, np.clip(row, 0, hm - 1), np.clip(col, 0, wm - 1)], CELL_WALL)
    bad = used & (code != CELL_FLOOR)
    if not bad.any():
        return None
    i, k = np.argwhere(bad)[0]
    return (f"{ARRAY_PREFIX}{name}: {what} {k} of level {i} at (x, y) = ({points[i, k, 0]:g}, {points[i, k, 1]:g}) "
            f"lies in cell ({row[i, k]}, {col[i, k]}), which is {code[i, k]}, not floor ({CELL_FLOOR})")


def _spawns_open(f: Fields) -> Iterator[str]:
    """Every level has a valid goal choice, each valid goal choice allows a spawn point, and every
    allowed spawn point lies in a floor cell."""
    choices = f["goal_choice_valid"]
    none = ~choices.any(axis=1)
    if none.any():
        yield f"{ARRAY_PREFIX}goal_choice_valid: level {int(np.argmax(none))} has no valid goal choice"
    allowed = f["spawn_allowed"] & choices[:, :, None]
    stuck = choices & ~allowed.any(axis=2)
    if stuck.any():
        i, k = np.argwhere(stuck)[0]
        yield f"{ARRAY_PREFIX}spawn_allowed: level {i}, goal choice {k} allows no spawn point"
    problem = _floor_problem(f, "spawn_pos", f["spawn_pos"], allowed.any(axis=1), "spawn point")
    if problem:
        yield problem


def _teleports_open(f: Fields) -> Iterator[str]:
    """Every teleport destination a valid pickup sends the player to lies in a floor cell."""
    target = np.broadcast_to(f["pickup_teleport"], f["pickup_valid"].shape)
    used = np.zeros(f["teleport_yaw"].shape, bool)
    level, pickup = np.nonzero((target >= 0) & f["pickup_valid"])
    used[level, target[level, pickup]] = True
    problem = _floor_problem(f, "teleport_pos", f["teleport_pos"], used, "teleport destination")
    if problem:
        yield problem


#: level type name -> its cross-field checks, in order (each yields problem lines)
CROSS_CHECKS: Dict[str, Tuple[Callable[[Fields], Iterator[str]], ...]] = {
    "Level": (_enclosed, _doors_point_at_doors, _points_inside_map, _spawns_open, _teleports_open),
}
