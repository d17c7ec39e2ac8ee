"""The bank-file rules of a first-person ``Level`` (``Level.bank_rules()``): each field's shape and
range, the minimum sizes, and the cross-field checks (enclosed grid, doors, world points inside the
map, spawn points and teleport destinations in floor cells). numpy only, on the host; the machinery
that applies them is ``jaxlab.bank_checks``.
"""
from __future__ import annotations

from typing import Dict, Iterator, Optional

import numpy as np

from jaxlab.bank_checks import ARRAY_PREFIX, MAX_SECONDS, BankRules, Fields, Rule, Size, reward_rule
from jaxlab.levels.dmlab.heights import HEIGHT_CELLS_PER_CELL, NO_FLOOR, NUM_SKIES
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.object_catalogue import NUM_KEY_COLOURS, SWITCH_LOCK
from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES
from jaxlab.levels.dmlab.themes import NUM_LEVEL_THEMES, NUM_THEMES
from jaxlab.levels.dmlab.units import CELL_SIZE

#: the highest ground a level may have, units
MAX_GROUND = 8192.0
#: the largest Unicode code point (``Level.text_chars``)
MAX_CODE_POINT = 0x10FFFF
DOOR_CODES = (CELL_DOOR_I, CELL_DOOR_H)

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
    "pickup_reward": reward_rule(("N",)),
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
    "unlock_reward": reward_rule(),
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
    "platform_reward": reward_rule(),
    "spawn_yaw": Rule(("S",), nan=True),
    "spawn_yaw_range": Rule(("S",), low=0.0, high=360.0),
    "pickup_spawned_by": Rule(("N",), low=-1, high=Size("N", -1), broadcast=True),
    "theme": Rule((), low=0, high=NUM_LEVEL_THEMES - 1),
    "floor_z": Rule(("Zh", "Zw"), low=NO_FLOOR, high=MAX_GROUND),
    "sky": Rule((), low=0, high=NUM_SKIES - 1),
    "jump_crouch": Rule(()),
    "obstacle_pos": Rule(("O", 2)),
    "obstacle_radius": Rule(("O",), low=0.0, high=CELL_SIZE),
    "pickup_scale": Rule(("N",), positive=True, high=8.0, broadcast=True),
    "instr": Rule(("I",), low=0),   # ids past VOCABULARY's are a compiled level's own words (FirstPersonEnv checks)
    "floor_rect": Rule(("F", 4)),
    "floor_rect_rgb": Rule(("F", 3), low=0, high=255),
    "counted_restarts": Rule(()),
    "counted_bonus": reward_rule(),
    "hurt_box": Rule(("Kv", 6), low=-MAX_GROUND, high=MAX_GROUND, nan=True),
    "hurt_damage": Rule(("Kv",), low=0.0),
    "pad_box": Rule(("Kp", 6), low=-MAX_GROUND, high=MAX_GROUND, nan=True),
    "pad_velocity": Rule(("Kp", 3), low=-1e5, high=1e5),
    "cleared_restarts": Rule(()),
    "screen_box": Rule(("Q", 6), low=-MAX_GROUND, high=MAX_GROUND, nan=True),
    "screen_st": Rule(("Q", 4), low=-1e3, high=1e3),
    "screen_texture": Rule(("Q",), low=0, high=255),
}

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


def _heights_fit_the_map(f: Fields) -> Iterator[str]:
    """``floor_z`` is empty (a flat level) or has HEIGHT_CELLS_PER_CELL height cells per map cell
    along each axis; heights are drawn only under a sky (``sky`` >= 1)."""
    zh, zw = f["floor_z"].shape[1:]
    hm, wm = f["cells"].shape[1:]
    if (zh, zw) != (0, 0) and (zh, zw) != (HEIGHT_CELLS_PER_CELL * hm, HEIGHT_CELLS_PER_CELL * wm):
        yield (f"{ARRAY_PREFIX}floor_z: shape ({zh}, {zw}) fits neither a flat level (0, 0) nor the "
               f"{hm}×{wm} map's height cells ({HEIGHT_CELLS_PER_CELL * hm}, {HEIGHT_CELLS_PER_CELL * wm})")



def _volumes_have_heights(f: Fields) -> Iterator[str]:
    """Hurt zones and jump pads act only in levels with heights (the kernel's flat step has no ground to fall
    to): a level with a real (not NaN) box has a ``floor_z``."""
    flat = f["floor_z"].shape[1:] == (0, 0)
    for name in ("hurt_box", "pad_box"):
        real = ~np.isnan(f[name]).all(axis=-1)
        if flat and real.any():
            yield (f"{ARRAY_PREFIX}{name}: level {int(np.argwhere(real)[0][0])} has a box but no heights "
                   "(floor_z of shape (0, 0)): hurt zones and jump pads need a level with heights")


#: the rules of a first-person ``Level`` bank
LEVEL_BANK_RULES = BankRules(
    fields=LEVEL_RULES,
    min_sizes={"Hm": 1, "Wm": 1, "D": 1, "N": 1, "K": 1, "S": 1, "T": 1},
    cross_checks=(_enclosed, _heights_fit_the_map, _volumes_have_heights, _doors_point_at_doors, _points_inside_map,
                  _spawns_open, _teleports_open))
