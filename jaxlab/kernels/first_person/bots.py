"""Laser-tag bots on the device: each picks its action once per agent step (held for its frames).

A bot of skill s (1..5, DMLab-30 plays 4):
- hunts the nearest other player in play (its *quarry*), and walks the
  shortest path on the cell grid to it: ``steps_to`` holds, per player, the
  cell steps from every cell to that player's cell (Bellman sweeps: a full
  relaxation when the episode starts, ``SWEEPS`` per agent step after, so
  the fields follow the players); on its way it detours to a pickup it wants
  when that pickup is nearer than its quarry;
- sees its quarry when the raycaster's wall distance along the line between
  them is longer than the line and the quarry is within ``FOV_DEGREES`` of
  its view; then it turns to it (at most ``turn_rate(s)`` degrees a second,
  with an aiming error that wanders with a spread ``aim_spread(s)``), dodges
  sideways, keeps its distance, and fires once the quarry has been in sight
  for ``reaction_seconds(s)`` and its aim falls on the quarry's box.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.kernels.first_person.grid import cell_of, door_closed
from jaxlab.kernels.first_person.movement import planar_length
from jaxlab.kernels.first_person.pickups import pickup_positions, present
from jaxlab.kernels.first_person.state import ArenaState, BotBrain, WorldState
from jaxlab.kernels.first_person.tagging import wall_distance
from jaxlab.levels.dmlab import actions as A
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_WALL
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy
from jaxlab.levels.dmlab.procedural.rng import hash_words, key_words, standard_normal, unit_interval
from jaxlab.render.first_person.raycast import solid_cells

SWEEPS = 4               # Bellman sweeps of every player's field per agent step
FOV_DEGREES = 90.0       # half the angle a bot sees
FAR = 1.0e4              # steps_to of a cell not reached (or a wall)
NEAR_UNITS, CLOSE_UNITS = 320.0, 140.0   # a bot closes in beyond NEAR and backs off within CLOSE
STRAFE_FLIP = 0.15       # chance per agent step that an engaged bot dodges the other way
_BOT_STREAM = 3          # counter-hash stream of the bots' draws (``tagging`` uses 1, ``arena`` 2)


def turn_rate(skill):
    """Degrees per second a bot of ``skill`` turns at most."""
    return 90.0 + 45.0 * skill


def aim_spread(skill):
    """Degrees: the spread of the wandering aiming error of a bot of ``skill``."""
    return 0.5 + 1.5 * jnp.maximum(5.0 - skill, 0.0)


def reaction_seconds(skill):
    """Seconds a quarry must stay in sight before a bot of ``skill`` fires."""
    return jnp.maximum(0.6 - 0.1 * skill, 0.05)


def _wrap(deg):
    return jnp.mod(deg + 180.0, 360.0) - 180.0


def field_index(rc, wm: int) -> jnp.ndarray:
    """int32[...]: where cells ``rc`` (int32[..., 2] (row, col)) of an Hm×Wm map stand in a flat field (row
    after row of Wm + 2 entries, the map bordered by one cell on every side)."""
    return (rc[..., 0] + 1) * (wm + 2) + rc[..., 1] + 1


def relax(steps, open_cells, target, sweeps: int = 0):
    """``sweeps`` Bellman sweeps of flat fields ``steps`` (float32[K, (Hm + 2) * (Wm + 2)], ``field_index``)
    toward the cells ``target`` (int32[K, 2] (row, col)) over ``open_cells`` (bool[Hm, Wm]): each cell takes
    1 + its best 4-neighbour (shifts by 1 and by Wm + 2 of the flat axis), the target 0, a wall and the
    border ``FAR``. ``sweeps`` 0: sweep until nothing changes (at most Hm * Wm sweeps), which leaves every
    field exact."""
    hm, wm = open_cells.shape
    w2 = wm + 2
    n = (hm + 2) * w2
    flat_open = jnp.pad(open_cells, 1).reshape(-1)
    at_target = jnp.arange(n)[None, :] == field_index(target, wm)[:, None]

    def sweep(_, f):
        padded = jnp.pad(f, ((0, 0), (w2, w2)), constant_values=FAR)
        best = jnp.minimum(jnp.minimum(padded[:, w2 - 1:w2 - 1 + n], padded[:, w2 + 1:w2 + 1 + n]),
                           jnp.minimum(padded[:, :n], padded[:, 2 * w2:]))
        f = jnp.where(flat_open[None], jnp.minimum(best + 1.0, FAR), FAR)
        return jnp.where(at_target, 0.0, f)

    if sweeps:
        return jax.lax.fori_loop(0, sweeps, sweep, steps)

    def unsettled(carry):
        i, f, changed = carry
        return changed & (i < hm * wm)

    def settle(carry):
        i, f, _ = carry
        new = sweep(i, f)
        return i + 1, new, jnp.any(new != f)

    return jax.lax.while_loop(unsettled, settle, (0, steps, jnp.bool_(True)))[1]


def open_cells(level: Level) -> jnp.ndarray:
    """bool[Hm, Wm]: cells a bot may walk through (everything but walls)."""
    return level.cells != CELL_WALL


def cells_of(level: Level, pos) -> jnp.ndarray:
    """int32[K, 2] (row, col) of world points ``pos`` (float32[K, 2] units)."""
    return jnp.stack(cell_of(level, pos[:, 0], pos[:, 1]), -1)


def start_brain(level: Level, brain: BotBrain, players_pos, pickup_pos) -> BotBrain:
    """``brain`` with every field relaxed in full: toward the players (float32[P, 2]) and the pickups
    (float32[N, 2]), swept until they are exact."""
    hm, wm = level.cells.shape
    open_ = open_cells(level)
    far_players = jnp.full((players_pos.shape[0], (hm + 2) * (wm + 2)), FAR, jnp.float32)
    far_pickups = jnp.full((pickup_pos.shape[0], (hm + 2) * (wm + 2)), FAR, jnp.float32)
    return brain.replace(steps_to=relax(far_players, open_, cells_of(level, players_pos)),
                         steps_to_pickup=relax(far_pickups, open_, cells_of(level, pickup_pos)))


def _next_cell_centre(level: Level, field, rc):
    """float32[2]: the centre of the 4-neighbour of cell ``rc`` (int32[2]) lowest in the flat ``field``
    (float32[(Hm + 2) * (Wm + 2)]; the border is ``FAR``, so the best neighbour is on the map)."""
    hm, wm = level.cells.shape
    moves = jnp.asarray([[-1, 0], [1, 0], [0, -1], [0, 1]], jnp.int32)
    nbr = rc[None, :] + moves
    best = nbr[jnp.argmin(field[field_index(nbr, wm)])]
    return cell_centre_xy(jnp.clip(best, 0, jnp.asarray([hm - 1, wm - 1])), level.rows)


def bot_actions(level: Level, door_open, pos, yaw, arena: ArenaState, pickup_present, pickup_pos, repeat: int,
                fps: int, seed, rows=None):
    """The bots' actions for the next agent step and their brain after it.

    pos float32[P, 2], yaw float32[P]: every player's position and yaw (row 0 the agent); door_open float32[D];
    pickup_present bool[N], pickup_pos float32[N, 2]; repeat: frames per agent step; fps: frames per second;
    seed: uint32[2] words whose counter hashes draw the aiming noise and the dodges;
    rows (static): the players to play (default the others, 1..P-1), each at its skill ``arena.bot``.
    Returns (act int32[len(rows), 7] (a row of a player whose skill is 0, a learner, is all zero), brain with
    those rows' memory updated).
    """
    p = arena.up.shape[0]
    wm = level.cells.shape[1]
    rows = tuple(range(1, p)) if rows is None else tuple(rows)
    b = len(rows)
    brain = arena.brain
    live = arena.playing & arena.up
    rc = cells_of(level, pos)
    solid = solid_cells(level.cells, level.door_index, door_closed(door_open))
    steps_to = relax(brain.steps_to, open_cells(level), rc, SWEEPS)
    gap = pos[None, :, :] - pos[:, None, :]                      # [P, P, 2]: from i to j
    dist = planar_length(gap)
    rivals = live[None, :] & ~jnp.eye(p, dtype=bool)

    def one(i, aim_noise, flip):
        skill = arena.bot[i]
        quarry = jnp.argmin(jnp.where(rivals[i], dist[i], jnp.inf))
        has_quarry = jnp.any(rivals[i])
        d = jnp.maximum(dist[i, quarry], 1e-3)
        heading = jnp.rad2deg(jnp.arctan2(gap[i, quarry, 1], gap[i, quarry, 0]))
        unit = gap[i, quarry] / d
        clear = wall_distance(solid, level.rows, pos[i], unit) > d - C.PLAYER_RADIUS
        visible = has_quarry & clear & (jnp.abs(_wrap(heading - yaw[i])) < FOV_DEGREES)
        seen = jnp.where(visible & (quarry == brain.quarry[i]), brain.seen[i] + 1, 0)
        seen = jnp.where(visible, jnp.maximum(seen, 1), 0)
        aim = 0.7 * brain.aim[i] + aim_spread(skill) * aim_noise
        # where to walk: the quarry, or a wanted pickup nearer than it in steps
        field = steps_to[quarry]
        here = field_index(rc[i], wm)
        to_pickup = jnp.where(pickup_present, brain.steps_to_pickup[:, here], jnp.inf)
        nearest = jnp.argmin(to_pickup)
        detour = ~visible & (to_pickup[nearest] < field[here])
        field = jnp.where(detour, brain.steps_to_pickup[nearest], field)
        waypoint = _next_cell_centre(level, field, rc[i])
        same_cell = jnp.all(rc[i] == rc[quarry]) & ~detour
        at_pickup = detour & (to_pickup[nearest] < 1)
        target = jnp.where(same_cell, pos[quarry], jnp.where(at_pickup, pickup_pos[nearest], waypoint))
        walk_heading = jnp.rad2deg(jnp.arctan2(target[1] - pos[i, 1], target[0] - pos[i, 0]))
        want = jnp.where(visible, heading + aim, walk_heading)
        turn = _wrap(want - yaw[i])
        most = turn_rate(skill) / fps
        per_frame = jnp.clip(turn / repeat, -most, most)
        look_px = jnp.round(-per_frame / C.LOOK_DEGREES_PER_PIXEL)
        on_target = jnp.abs(_wrap(heading - (yaw[i] - aim))) < jnp.rad2deg(jnp.arctan2(C.PLAYER_RADIUS, d))
        shoot = visible & on_target & (seen * repeat >= reaction_seconds(skill) * fps)
        strafe = jnp.where(flip, -brain.strafe[i], brain.strafe[i])
        forward = jnp.where(visible, jnp.where(d > NEAR_UNITS, 1.0, jnp.where(d < CLOSE_UNITS, -1.0, 0.0)),
                            jnp.where(jnp.abs(_wrap(walk_heading - yaw[i])) < 60.0, 1.0, 0.0))
        act = jnp.zeros((7,), jnp.float32)
        act = act.at[A.LOOK_LEFT_RIGHT].set(jnp.clip(look_px, -512, 512))
        act = act.at[A.STRAFE_LEFT_RIGHT].set(jnp.where(visible & (skill >= 2), strafe, 0.0))
        act = act.at[A.MOVE_BACK_FORWARD].set(jnp.where(has_quarry | detour, forward, 0.0))
        act = act.at[A.FIRE].set((shoot | ~arena.up[i]).astype(jnp.float32))
        act = jnp.where(skill > 0, act, 0.0)
        return act.astype(jnp.int32), quarry.astype(jnp.int32), seen, aim, strafe

    words = hash_words(seed, _BOT_STREAM, jnp.arange(3 * b, dtype=jnp.uint32)).reshape(3, b)
    noise = standard_normal(words[0], words[1])
    flips = unit_interval(words[2]) < STRAFE_FLIP
    index = jnp.asarray(rows, jnp.int32)
    act, quarry, seen, aim, strafe = jax.vmap(one)(index, noise, flips)
    return act, brain.replace(steps_to=steps_to, quarry=brain.quarry.at[index].set(quarry),
                              seen=brain.seen.at[index].set(seen.astype(jnp.int32)), aim=brain.aim.at[index].set(aim),
                              strafe=brain.strafe.at[index].set(strafe))


def choose_for(level: Level, state: WorldState, repeat: int, fps: int, rows=None, seed=None):
    """``bot_actions`` for the players ``rows`` (default the others) of a first-person ``state`` with an arena,
    read from the state itself (positions, doors, pickups; ``seed`` uint32[2] words, default the words of the
    state's key). Returns (act int32[len(rows), 7], the state with the bots' brain after choosing)."""
    arena = state.arena
    pos = jnp.concatenate([state.pos[None], arena.pos])
    yaw = jnp.concatenate([state.yaw[None], arena.yaw])
    act, brain = bot_actions(level, state.door_open, pos, yaw, arena, present(level, state.pickup_wait),
                             pickup_positions(level, state.goal_choice), repeat, fps,
                             key_words(state.key) if seed is None else seed, rows)
    return act, state.replace(arena=arena.replace(brain=brain))
