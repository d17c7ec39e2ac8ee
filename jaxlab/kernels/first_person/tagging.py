"""Laser tag's shots and their damage, one frame: every firing player's shot at once (P players).

A shot leaves the shooter's eye along its yaw (a Rapid shot turned by its
random spread) and pitch. It stops at the first wall or closed door (the
raycaster's wall distance, ``render.first_person.raycast.cast_walls``), at the
gadget's reach, or at the first player in play whose box (a disc of ``PLAYER_RADIUS`` from
the floor to ``PLAYER_HEIGHT``) it meets. The player met takes the gadget's
damage; the Orb's blast also hurts everyone else within its radius of the
point the shot stopped whom the walls do not hide from that point, the
shooter included (``gadgets``).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.env import where_rows
from jaxlab.kernels.first_person.grid import door_closed
from jaxlab.kernels.first_person.movement import planar_dot, planar_length
from jaxlab.levels.dmlab import gadgets as G
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.procedural.rng import hash_words, unit_interval
from jaxlab.levels.dmlab.units import CELL_SIZE
from jaxlab.render.first_person.raycast import cast_walls, solid_cells

_BIG = 1.0e9
#: cell crossings walked from a blast to a player (enough for the largest blast radius)
_BLAST_STEPS = 2 * int(np.ceil(float(np.max(G.GADGET_BLAST)) / C.CELL_SIZE)) + 2
BACK_OFF = 1.0   # units a shot stopped by a wall stops short of it
SPREAD_STREAM = 1   # counter-hash stream of the shots' spread


class Shots(NamedTuple):
    """One frame's shots (P players).

    damage: float32[P, P] damage from shooter i to player k (before armour; self damage already halved).
    stop: float32[P, 2] where each shot stopped (units; the shooter's position when it did not fire).
    hit: int32[P] the player each shot met (-1: none).
    """

    damage: jnp.ndarray
    stop: jnp.ndarray
    hit: jnp.ndarray


def wall_distance(solid, rows, pos, direction) -> jnp.ndarray:
    """float32[]: units from ``pos`` (float32[2]) along the unit ``direction`` (float32[2]) to the first
    solid cell (``solid`` bool[Hm, Wm]), by the renderer's grid walk."""
    return cast_walls(solid, rows, pos, direction[None, :]).dist[0]


def clear_segment(solid, rows, a, b, steps: int) -> jnp.ndarray:
    """bool[]: no solid cell (``solid`` bool[Hm, Wm]) on the straight line from ``a`` to ``b`` (float32[2] units),
    by a grid walk of at most ``steps`` (static) cell crossings: enough for a segment of up to
    (steps / 2 - 1) cells along each axis; a longer one counts as blocked."""
    hm, wm = solid.shape
    o, e = a / CELL_SIZE, b / CELL_SIZE
    d = e - o
    cell = jnp.floor(o).astype(jnp.int32)
    end = jnp.floor(e).astype(jnp.int32)
    step = jnp.where(d < 0, -1, 1).astype(jnp.int32)
    safe = jnp.where(d == 0, 1.0, d)
    t_delta = jnp.where(d == 0, _BIG, jnp.abs(1.0 / safe))
    t_next = jnp.where(d == 0, _BIG, (jnp.where(d < 0, o - cell, cell + 1 - o)) * t_delta)

    def wall(c):
        return solid[jnp.clip(rows - 1 - c[1], 0, hm - 1), jnp.clip(c[0], 0, wm - 1)]

    blocked = wall(cell)
    for _ in range(steps):
        arrived = jnp.all(cell == end)
        go_x = t_next[0] < t_next[1]
        move = jnp.where(go_x, jnp.asarray([1, 0]), jnp.asarray([0, 1])) * ~arrived
        cell = cell + move * step
        t_next = t_next + move * t_delta
        blocked = blocked | (~arrived & wall(cell))
    return ~blocked & jnp.all(cell == end)


def _blast_sight(solid, rows, stop, pos):
    """bool[P, P]: no wall between where shot i stopped and player k."""
    return jax.vmap(lambda origin: jax.vmap(lambda target: clear_segment(solid, rows, origin, target, _BLAST_STEPS))(
        pos))(stop)


def _no_sight(solid, rows, stop, pos):
    return jnp.zeros((stop.shape[0], pos.shape[0]), bool)


def first_player_on_ray(pos, eye_z, yaw, pitch, others_pos, others_z, others_open, limit):
    """The first player box a ray meets before ``limit`` units.

    pos float32[2], eye_z float32[] units; yaw, pitch float32[] degrees; others_pos float32[K, 2],
    others_z float32[K] their feet, others_open bool[K] the boxes that can be met; limit float32[].
    Returns (index int32[] (-1: none), distance float32[] along the ground to where the ray enters it).
    """
    rad = jnp.deg2rad(yaw)
    d = jnp.stack([jnp.cos(rad), jnp.sin(rad)])
    rel = others_pos - pos
    along = planar_dot(rel, d)
    across2 = planar_dot(rel, rel) - along ** 2
    r2 = C.PLAYER_RADIUS ** 2
    enter = along - jnp.sqrt(jnp.maximum(r2 - across2, 0.0))
    enter = jnp.maximum(enter, 0.0)
    height = eye_z - enter * jnp.tan(jnp.deg2rad(pitch)) - others_z   # positive pitch looks down
    meets = others_open & (along > 0) & (across2 <= r2) & (enter < limit) & (height >= 0) & (height <= C.PLAYER_HEIGHT)
    dist = jnp.where(meets, enter, _BIG)
    k = jnp.argmin(dist)
    return jnp.where(meets[k], k, -1).astype(jnp.int32), dist[k]


def fire(walls, rows, pos, eye_z, feet_z, yaw, pitch, firing, up, gadget, seed) -> Shots:
    """Every firing player's shot.

    walls: (cells int8[Hm, Wm], door_index int32[Hm, Wm], door_open float32[D]) a level's cells and doors;
    rows: int32[] the map's rows; pos float32[P, 2];
    eye_z, feet_z float32[P] units; yaw, pitch float32[P] degrees; firing bool[P] (in play, charged,
    cooled down and pressing FIRE); up bool[P] players in play (the ones a shot can meet); gadget int32[P];
    seed: uint32[2] words whose counter hash draws the spread. Returns ``Shots``.
    """
    p = pos.shape[0]
    spread = jnp.asarray(G.GADGET_SPREAD)[gadget]
    yaw = yaw + spread * (2.0 * unit_interval(hash_words(seed, SPREAD_STREAM, jnp.arange(p, dtype=jnp.uint32))) - 1.0)
    rad = jnp.deg2rad(yaw)
    direction = jnp.stack([jnp.cos(rad), jnp.sin(rad)], -1)
    cells, door_index, door_open = walls
    solid = solid_cells(cells, door_index, door_closed(door_open))
    to_wall = jax.vmap(wall_distance, in_axes=(None, None, 0, 0))(solid, rows, pos, direction)
    reach = jnp.asarray(G.GADGET_REACH)[gadget]
    limit = jnp.minimum(to_wall, reach)
    not_self = ~jnp.eye(p, dtype=bool)

    def meet(i):
        return first_player_on_ray(pos[i], eye_z[i], yaw[i], pitch[i], pos, feet_z, up & not_self[i], limit[i])

    hit, dist = jax.vmap(meet)(jnp.arange(p))
    hit = jnp.where(firing, hit, -1)
    # a shot stopped by a wall stops BACK_OFF short of it (its blast starts in the open)
    travelled = jnp.where(hit >= 0, dist, jnp.maximum(limit - BACK_OFF, 0.0))
    stop = jnp.where(firing[:, None], pos + direction * travelled[:, None], pos)
    damage_of = jnp.asarray(G.GADGET_DAMAGE)[gadget]
    direct = (jnp.arange(p)[None, :] == hit[:, None]) * damage_of[:, None]
    blast_radius = jnp.asarray(G.GADGET_BLAST)[gadget]
    gap_xy = pos[None, :, :] - stop[:, None, :]
    gap = planar_length(gap_xy)
    # a blast is rare: under vmap only the envs with one walk the lines from it
    reached = where_rows(jnp.any(firing & (blast_radius > 0)), _blast_sight, _no_sight, (solid, rows, stop, pos))
    blast = jnp.where((blast_radius[:, None] > 0) & (gap < blast_radius[:, None]) & up[None, :] & reached
                      & (jnp.arange(p)[None, :] != hit[:, None]),
                      damage_of[:, None] * (1.0 - gap / jnp.maximum(blast_radius[:, None], 1e-6)), 0.0)
    damage = jnp.where(firing[:, None], direct + blast, 0.0)
    damage = damage * jnp.where(jnp.eye(p, dtype=bool), G.SELF_DAMAGE_SCALE, 1.0)
    return Shots(damage=damage, stop=stop, hit=hit)


def no_shots(walls, rows, pos, *_) -> Shots:
    """``fire``'s result when nobody fires: no damage, every shot stopped at its shooter."""
    p = pos.shape[0]
    return Shots(damage=jnp.zeros((p, p), jnp.float32), stop=pos, hit=jnp.full((p,), -1, jnp.int32))


def take_damage(shield, armour, damage):
    """Apply one frame's ``damage`` (float32[P, P], shooter by player) to players' ``shield`` and ``armour``
    (float32[P]): the armour takes ``ARMOUR_SHARE`` of each player's total (rounded up) while it lasts.

    Returns (shield, armour, tagger int32[P]: the player who did the most damage to each, -1 for none)."""
    total = damage.sum(0)
    save = jnp.minimum(jnp.ceil(total * G.ARMOUR_SHARE), armour)
    tagger = jnp.where(total > 0, jnp.argmax(damage, axis=0), -1).astype(jnp.int32)
    return shield - (total - save), armour - save, tagger
