"""The compiled first-person Level: a flax struct of fixed-shape arrays.

World coordinates are DMLab's game units: a cell is 100 units, x grows to the
right (with the column) and y grows upwards, i.e. against the text rows. Cell
(row, col) spans x in [100 col, 100 col + 100) and y in
[100 (rows-1-row), 100 (rows-row)).
"""
from __future__ import annotations

from collections import deque
from typing import Dict, Optional, Sequence, Tuple

import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.dmlab.bank_rules import LEVEL_BANK_RULES
from jaxlab.levels.dmlab.heights import NO_FLOOR
from jaxlab.levels.dmlab.level_fields import no_bots, no_mechanics, no_screen_text
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_WALL, ParsedMap, parse_text_map
from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES, pickup_kind
from jaxlab.levels.dmlab.units import CELL_SIZE


@struct.dataclass
class Level:
    """A compiled first-person level. Shapes: grid Hm×Wm, N pickups, D doors,
    K goal choices, S spawn points (all padded; ``*_valid`` masks mark real rows).

    cells: int8[Hm, Wm] CELL_* codes (padding is wall); variation: int8[Hm, Wm].
    door_index: int32[Hm, Wm] index into the door arrays or -1.
    door_cell: int32[D, 2] (row, col); door_valid: bool[D].
    rows: int32[] number of map rows (for the y flip).
    pickup_pos: float32[N, 2] (x, y) units; pickup_kind: int32[N] index into
      PICKUP_TYPES; pickup_reward: float32[N]; pickup_is_goal: bool[N];
      pickup_valid: bool[N]; pickup_follows_goal: bool[N] (placed at the
      episode's goal choice); pickup_respawn_frames: int32[N] (-1: not before
      the map restarts).
    goal_choice_pos: float32[K, 2]; goal_choice_valid: bool[K].
    spawn_pos: float32[S, 2]; spawn_allowed: bool[K, S] spawn points allowed
      for each goal choice.
    episode_seconds: float32[] episode length in seconds of game time.
    pickup_takeable: bool[N] DMLab ``canPickup(id)``: a pickup with False is
      drawn but never taken (no reward, no respawn timer, and it does not
      count towards clearing a level without goals). Padding: False.
    custom_obs: dict name -> array, the level's custom observations (DMLab
      ``customObservation(name)``) for this episode: uint8 (spec type
      "bytes") or float32 ("doubles"), any shape; {} for built-in levels.
    Screen messages (DMLab ``screenMessages``), M messages of at most L
    characters, drawn over the frame by ``render.text``:
      text_chars: int32[M, L] character codes, 0 ends the string (padding 0);
      text_pos: float32[M, 2] (x, y) in DMLab's 640×480 virtual screen
        pixels, origin top-left, y the top of the line;
      text_align: int32[M] 0 left (x is the left edge), 1 right (x is the
        right edge), 2 centre (x is the centre of the string);
      text_valid: bool[M] real messages. M may be 0 (built-in levels: shapes
        (0, 1), (0, 2), (0,), (0,)).
    Bots (DMLab ``addBots``; carried for later use), B may be 0:
      bot_skill: float32[B] skill level; bot_valid: bool[B].
    Keys, locks, switches, teleports, the hidden platform and episode-ending
    pickups (the DMLab-30 rooms_* levels; ``first_person.mechanics``), T
    teleport destinations:
      door_lock: int32[D] 0 an ordinary door (opens when the player is near);
        k >= 1 locked until the player touches it holding the key of colour
        k (the key is used up, ``unlock_reward`` is paid, the door then
        behaves as an ordinary door); -1 stays shut; -2 (SWITCH_LOCK) opens
        once a switch pickup has been taken.
      unlock_reward: float32[] paid when a key opens a door.
      pickup_key: int32[N] 0, or k >= 1: taking the pickup holds key k; one
        key is held at a time (a new key replaces the held one).
      pickup_switch: bool[N] taking the pickup throws the level's switch:
        SWITCH_LOCK doors unlock and the theme becomes ``switch_theme``.
      switch_theme: int32[] the theme once the switch is thrown.
      pickup_teleport: int32[N] -1, or t: taking the pickup moves the player
        to ``teleport_pos[t]`` facing ``teleport_yaw[t]`` degrees.
      teleport_pos: float32[T, 2] (x, y) units; teleport_yaw: float32[T].
      pickup_spawned_by: int32[N] -1 (there from the map's start), or j: the
        pickup is absent until pickup j is taken, then appears (DMLab's
        ``pickups_spawn:spawn`` called by ``api:pickup``).
      pickup_counts: bool[N] pickups counted towards ``end_after_pickups``:
        the episode ends (terminates) once that many of them have been
        taken (0: never).
      platform_pos: float32[2] (x, y) units and platform_radius: float32[]
        units of a hidden platform (radius 0: none); standing on it for
        platform_seconds (float32[]) pays platform_reward (float32[]) and
        restarts the map. It is never drawn.
    spawn_yaw: float32[S] the yaw a player spawning at each spawn point faces,
      degrees (NaN: random).
    spawn_yaw_range: float32[S] degrees, 0..360: a player spawning at the point
      faces ``spawn_yaw`` turned by a uniform amount within half the range either
      way (DMLab's ``randomAngleRange``; 0: exactly ``spawn_yaw``).
    theme: int32[] the level's visual theme (floor, ceiling; 0 the default look).
    Heights (``jaxlab.levels.dmlab.heights``; skymaze, natlab), O solid
    obstacles:
      floor_z: float32[2 Hm, 2 Wm] ground height in units per 50-unit height
        cell (``NO_FLOOR``: nothing there, invisible and solid); shape (0, 0)
        for a flat level.
      sky: int32[] 0 the flat look (ceiling); k >= 1 the sky and light
        ``heights.SKY_NAMES[k]``, which draws the heights.
      jump_crouch: bool[] JUMP and CROUCH act (False: both are no-ops, as
        in DMLab levels that clear them).
      obstacle_pos: float32[O, 2] (x, y) units and obstacle_radius:
        float32[O] units of solid upright obstacles (cacti, rocks) the
        player's box cannot enter; O may be 0.
      pickup_scale: float32[N] a pickup's drawn size as a factor of its
        type's (1 for most).
      cleared_restarts: bool[] in a level without goals, the map restarts once no
        takeable pickup with a positive reward is left (DMLab's seek-avoid and
        explore factories' rule, jaxlab's levels'); False in levels compiled from a
        script, whose own callbacks decide (DMLab's engine restarts only on a goal
        or ``game:finishMap``).
    Trigger volumes that act on the body (``kernels.first_person.volumes``), boxes (x0, y0, z0, x1, y1, z1)
    units touched by the player's box (NaN rows: padding); Kv, Kp may be 0:
      hurt_box: float32[Kv, 6] and hurt_damage: float32[Kv] points a second of hurt and kill zones.
      pad_box: float32[Kp, 6] and pad_velocity: float32[Kp, 3] (x, y, z) units/s of jump pads.
    Screens (``render.first_person.screens``): upright rectangles showing a texture the level script keeps in
    its play state (DMLab's ``api:loadTexture``/``game:updateTexture``); Q may be 0:
      screen_box: float32[Q, 6] (x0, y0, z0, x1, y1, z1) units, x0 == x1 or y0 == y1 (NaN rows: padding).
      screen_st: float32[Q, 4] the texture coordinates (0..1, s across, t down the image) at the box's low
        and high ends: s at (x0 or y0), s at (x1 or y1), t at z0, t at z1.
      screen_texture: int32[Q] which of the script's live textures it shows.
    Language (DMLab's language levels):
      instr: int32[I] the instruction (``levels.dmlab.instructions`` token ids, 0 pads, ids past
        ``VOCABULARY``'s a compiled level's own words; I is 0 or ``INSTRUCTION_LENGTH``): the INSTR observation.
      floor_rect: float32[F, 4] (x0, y0, x1, y1) units and floor_rect_rgb: uint8[F, 3]: the floor
        inside rectangle f is coloured ``floor_rect_rgb[f]`` (DMLab's custom floors, a room each: "the
        blue room"; a later rectangle over an earlier one); F may be 0 (the theme's floor everywhere).
      counted_restarts: bool[] reaching ``end_after_pickups`` restarts the map and pays
        counted_bonus (float32[]) instead of ending the episode; the count starts again at 0.
    """

    cells: jnp.ndarray
    variation: jnp.ndarray
    door_index: jnp.ndarray
    door_cell: jnp.ndarray
    door_valid: jnp.ndarray
    rows: jnp.ndarray
    pickup_pos: jnp.ndarray
    pickup_kind: jnp.ndarray
    pickup_reward: jnp.ndarray
    pickup_is_goal: jnp.ndarray
    pickup_valid: jnp.ndarray
    pickup_follows_goal: jnp.ndarray
    pickup_respawn_frames: jnp.ndarray
    goal_choice_pos: jnp.ndarray
    goal_choice_valid: jnp.ndarray
    spawn_pos: jnp.ndarray
    spawn_allowed: jnp.ndarray
    episode_seconds: jnp.ndarray
    pickup_takeable: jnp.ndarray
    custom_obs: Dict[str, jnp.ndarray]
    text_chars: jnp.ndarray
    text_pos: jnp.ndarray
    text_align: jnp.ndarray
    text_valid: jnp.ndarray
    bot_skill: jnp.ndarray
    bot_valid: jnp.ndarray
    door_lock: jnp.ndarray
    unlock_reward: jnp.ndarray
    pickup_key: jnp.ndarray
    pickup_switch: jnp.ndarray
    switch_theme: jnp.ndarray
    pickup_teleport: jnp.ndarray
    teleport_pos: jnp.ndarray
    teleport_yaw: jnp.ndarray
    pickup_counts: jnp.ndarray
    end_after_pickups: jnp.ndarray
    platform_pos: jnp.ndarray
    platform_radius: jnp.ndarray
    platform_seconds: jnp.ndarray
    platform_reward: jnp.ndarray
    spawn_yaw: jnp.ndarray
    theme: jnp.ndarray
    floor_z: jnp.ndarray
    sky: jnp.ndarray
    jump_crouch: jnp.ndarray
    obstacle_pos: jnp.ndarray
    obstacle_radius: jnp.ndarray
    pickup_scale: jnp.ndarray
    spawn_yaw_range: jnp.ndarray
    pickup_spawned_by: jnp.ndarray
    instr: jnp.ndarray
    floor_rect: jnp.ndarray
    floor_rect_rgb: jnp.ndarray
    counted_restarts: jnp.ndarray
    counted_bonus: jnp.ndarray
    hurt_box: jnp.ndarray
    hurt_damage: jnp.ndarray
    pad_box: jnp.ndarray
    pad_velocity: jnp.ndarray
    cleared_restarts: jnp.ndarray
    screen_box: jnp.ndarray
    screen_st: jnp.ndarray
    screen_texture: jnp.ndarray

    #: fill values of the padded fields in a bank (``jaxlab.bank``); the rest pad with 0 / False
    PAD_VALUES = {"cells": CELL_WALL, "door_index": -1, "pickup_respawn_frames": -1, "pickup_takeable": False,
                  "pickup_teleport": -1, "pickup_spawned_by": -1, "spawn_yaw": np.nan, "floor_z": NO_FLOOR,
                  "pickup_scale": 1.0, "hurt_box": np.nan, "pad_box": np.nan, "screen_box": np.nan}
    #: dtypes the arrays of a dict field may have in a bank file (``jaxlab.bank_file``)
    BANK_DICT_DTYPES = {"custom_obs": ("uint8", "float32")}

    @classmethod
    def bank_example(cls) -> "Level":
        """A one-cell room: its arrays give a bank file every field's dtype and rank."""
        return build_level(parse_text_map("***\n*P*\n***"), 1.0)

    @classmethod
    def bank_rules(cls):
        """What a bank file of Levels must hold (``jaxlab.levels.dmlab.bank_rules``)."""
        return LEVEL_BANK_RULES

    @classmethod
    def bank_defaults(cls, fields: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        """Values, with the bank axis, of the fields added after version-2 bank files were first
        written (keys, locks, teleports, platform, theme, heights), for a file that lacks them:
        none of those mechanics, a flat level. ``fields``: the file's arrays by field name."""
        n = np.asarray(fields["pickup_valid"]).shape
        d = np.asarray(fields["door_valid"]).shape
        one = no_mechanics(d[1], n[1], np.asarray(fields["spawn_pos"]).shape[1])
        return {k: np.broadcast_to(v, (n[0],) + np.shape(v)).copy() for k, v in one.items()}


def cell_center(row, col, rows) -> np.ndarray:
    """World (x, y) in units of the centre of cell (row, col); float32[..., 2]."""
    x = (np.asarray(col) + 0.5) * CELL_SIZE
    y = (rows - 1 - np.asarray(row) + 0.5) * CELL_SIZE
    return np.stack([x, y], -1).astype(np.float32)


def _path_distances(cells: np.ndarray, start) -> np.ndarray:
    """Grid BFS steps from ``start`` over non-wall cells; -1 where unreachable."""
    dist = np.full(cells.shape, -1, np.int32)
    dist[start] = 0
    todo = deque([start])
    while todo:
        r, c = todo.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if cells[nr, nc] != CELL_WALL and dist[nr, nc] < 0:
                dist[nr, nc] = dist[r, c] + 1
                todo.append((nr, nc))
    return dist


def build_level(
    parsed: ParsedMap,
    episode_seconds: float,
    random_goal: bool = False,
    min_spawn_fraction: float = 0.5,
    pickup_respawn_seconds: Optional[dict] = None,
    fps: int = 60,
) -> Level:
    """Compile a ParsedMap into a Level (numpy arrays, ready for jnp).

    Args:
      parsed: the parsed text map.
      episode_seconds: episode length in seconds.
      random_goal: if True, every ``P`` and ``G`` cell is a goal choice; each
        episode puts the goal on one choice and spawns the player at a ``P``
        whose path distance from it is at least ``min_spawn_fraction`` of the
        farthest one's. The map's ``G`` pickups are replaced by that one goal.
      pickup_respawn_seconds: optional {pickup type name: seconds} after which
        a taken pickup of that type reappears.
    """
    rows, cols = parsed.shape
    cells = parsed.cells.astype(np.int8)
    door_rc = np.argwhere((cells == CELL_DOOR_I) | (cells == CELL_DOOR_H)).astype(np.int32)
    door_index = np.full(cells.shape, -1, np.int32)
    door_index[tuple(door_rc.T)] = np.arange(len(door_rc), dtype=np.int32)

    spawns = list(parsed.spawns)
    pickups = [(r, c, k) for r, c, k in parsed.pickups if not (random_goal and PICKUP_TYPES[pickup_kind(k)].is_goal)]
    follows = [False] * len(pickups)
    if random_goal:
        choices = spawns + [(r, c) for r, c, k in parsed.pickups if PICKUP_TYPES[pickup_kind(k)].is_goal]
        pickups.append((0, 0, "goal"))
        follows.append(True)
        allowed = np.zeros((len(choices), len(spawns)), bool)
        for g, rc in enumerate(choices):
            dist = _path_distances(cells, rc)
            d = np.array([dist[s] for s in spawns])
            allowed[g] = (d > 0) & (d >= min_spawn_fraction * d.max())
            if not allowed[g].any():
                allowed[g] = d != 0
    else:
        choices = [(0, 0)]
        allowed = np.ones((1, len(spawns)), bool)

    kinds = np.array([pickup_kind(k) for _, _, k in pickups], np.int32).reshape(-1)
    respawn = np.full(len(pickups), -1, np.int32)
    for i, (_, _, k) in enumerate(pickups):
        seconds = (pickup_respawn_seconds or {}).get(k)
        if seconds is not None:
            respawn[i] = int(round(seconds * fps))

    def at_least_one(a, fill):
        return a if len(a) else np.full((1,) + a.shape[1:], fill, a.dtype)

    n_valid = len(pickups)
    pickup_pos = cell_center([p[0] for p in pickups], [p[1] for p in pickups], rows).reshape(-1, 2)
    return Level(
        cells=cells,
        variation=parsed.variation.astype(np.int8),
        door_index=door_index,
        door_cell=at_least_one(door_rc.reshape(-1, 2), 0),
        door_valid=at_least_one(np.ones(len(door_rc), bool), False),
        rows=np.int32(rows),
        pickup_pos=at_least_one(pickup_pos, 0.0),
        pickup_kind=at_least_one(kinds, 0),
        pickup_reward=at_least_one(np.array([PICKUP_TYPES[k].reward for k in kinds], np.float32), 0.0),
        pickup_is_goal=at_least_one(np.array([PICKUP_TYPES[k].is_goal for k in kinds], bool), False),
        pickup_valid=at_least_one(np.ones(n_valid, bool), False),
        pickup_follows_goal=at_least_one(np.array(follows, bool), False),
        pickup_respawn_frames=at_least_one(respawn, -1),
        goal_choice_pos=cell_center([c[0] for c in choices], [c[1] for c in choices], rows).reshape(-1, 2),
        goal_choice_valid=np.ones(len(choices), bool),
        spawn_pos=cell_center([s[0] for s in spawns], [s[1] for s in spawns], rows).reshape(-1, 2),
        spawn_allowed=allowed,
        episode_seconds=np.float32(episode_seconds),
        pickup_takeable=at_least_one(np.ones(n_valid, bool), False),
        custom_obs={},
        **no_screen_text(),
        **no_bots(),
        **no_mechanics(max(len(door_rc), 1), max(n_valid, 1), len(spawns)),
    )
