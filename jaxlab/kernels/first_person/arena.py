"""Laser tag in the first-person world, one frame: the other players, shots, shields, pickups, respawns.

A level with bots (``Level.bot_valid`` of length B > 0, e.g. the lasertag_*
levels) has P = 1 + B players: the agent (row 0, whose body the ordinary
first-person frame moves) and the others (``ArenaState``), each moved by its
own action with the same physics. Per frame, after the agent's own move:
the others move; players never overlap (a move that would put a player's
box inside another's is undone); every player pressing FIRE with a charged,
cooled-down gadget shoots (``tagging``); damage lowers shields (armour
first) and a shield at 0 tags its player (+1 to the tagger, -1 for tagging
oneself); players take the gadget and item pickups they touch; shields and
armour above 100 decay each second; tagged players come back at a free spawn
point (``gadgets`` has every rule and number). The episode ends when a
player reaches ``gadgets.TAG_LIMIT`` tags. The agent's reward is its score's
change.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.env import where_rows
from jaxlab.kernels.first_person.bots import start_brain
from jaxlab.kernels.first_person.movement import accelerate, look, move_and_collide, planar_length, wish_direction
from jaxlab.kernels.first_person.state import ArenaState, BotBrain
from jaxlab.kernels.first_person.tagging import fire, no_shots, take_damage
from jaxlab.kernels.first_person.terrain import ground
from jaxlab.levels.dmlab import actions as A
from jaxlab.levels.dmlab import gadgets as G
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.heights import has_heights
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy
from jaxlab.levels.dmlab.procedural.rng import hash_words, unit_interval
from jaxlab.levels.dmlab.pickup_types import FIRST_ARENA_KIND, PICKUP_INDEX

_GAP = 2.0 * C.PLAYER_RADIUS   # centres closer than this on both axes: boxes overlap
_SPAWN_STREAM = 2               # counter-hash stream of the spawn choice (``tagging`` uses 1)
_KINDS = np.asarray([PICKUP_INDEX[row[0]] for row in G.ARENA_PICKUPS], np.int32)
assert list(_KINDS) == list(range(FIRST_ARENA_KIND, FIRST_ARENA_KIND + len(_KINDS)))
_PICKUP_GADGET = np.asarray([row[1] for row in G.ARENA_PICKUPS], np.int32)
_PICKUP_SHIELD = np.asarray([row[2] for row in G.ARENA_PICKUPS], np.float32)
_PICKUP_ARMOUR = np.asarray([row[3] for row in G.ARENA_PICKUPS], np.float32)
_PICKUP_SECONDS = np.asarray([row[4] for row in G.ARENA_PICKUPS], np.float32)


def has_bots(level: Level) -> bool:
    """Whether ``level`` (unbatched or batched) has other players: a static Python bool read from the
    shape of ``bot_valid`` at trace time (levels without bots store shape (0,))."""
    return level.bot_valid.shape[-1] > 0


def overlapping(pos, live) -> jnp.ndarray:
    """bool[P]: players whose box overlaps another live player's box (pos float32[P, 2], live bool[P])."""
    gap = jnp.abs(pos[:, None, :] - pos[None, :, :])
    touch = (gap[..., 0] < _GAP) & (gap[..., 1] < _GAP) & live[None, :] & live[:, None]
    return jnp.any(touch & ~jnp.eye(pos.shape[0], dtype=bool), axis=1)


def separate(new_pos, old_pos, live):
    """Undo the moves that put a live player's box inside another's: (pos float32[P, 2], undone bool[P]).
    ``old_pos`` must have no overlaps; P passes settle every chain of undone moves."""
    undone = jnp.zeros(live.shape, bool)
    for _ in range(new_pos.shape[0]):
        back = overlapping(new_pos, live) & live
        new_pos = jnp.where(back[:, None], old_pos, new_pos)
        undone = undone | back
    return new_pos, undone


def choose_spawn(spawn_pos, spawn_ok, cells, rows, pos, live, seed):
    """A place to come back free of the live players (pos float32[P, 2], live bool[P]): a spawn point
    (spawn_pos float32[S, 2] where spawn_ok bool[S]; a level's ``spawn_allowed`` for any goal) if one is
    free, else the centre of a free floor cell of ``cells`` (int8[Hm, Wm], ``rows`` int32[]), else any spawn
    point, drawn uniformly with the counter hash of ``seed`` (uint32[2]). Returns (pos float32[2], yaw
    float32[] degrees)."""
    hm, wm = cells.shape
    grid = jnp.stack(jnp.meshgrid(jnp.arange(hm), jnp.arange(wm), indexing="ij"), -1).reshape(-1, 2)
    spots = jnp.concatenate([spawn_pos, cell_centre_xy(grid, rows)])
    gap = jnp.abs(spots[:, None, :] - pos[None, :, :])
    free = ~jnp.any((gap[..., 0] < _GAP) & (gap[..., 1] < _GAP) & live[None, :], axis=1)
    spawn = jnp.concatenate([spawn_ok, jnp.zeros((hm * wm,), bool)])
    floor = jnp.concatenate([jnp.zeros(spawn_ok.shape, bool), cells.reshape(-1) == CELL_FLOOR])
    tier = jnp.where(spawn & free, 3, jnp.where(floor & free, 2, jnp.where(spawn, 1, 0)))
    words = hash_words(seed, _SPAWN_STREAM, jnp.arange(spots.shape[0] + 1, dtype=jnp.uint32))
    pick = jnp.argmax(jnp.where(tier == tier.max(), words[:-1] | 1, 0))
    return spots[pick], unit_interval(words[-1]) * 360.0 - 180.0


def _no_spawn(spawn_pos, spawn_ok, cells, rows, pos, live, seed):
    return jnp.zeros((2,), jnp.float32), jnp.float32(0.0)


def _spawn_args(level: Level):
    """The level's arrays ``choose_spawn`` reads (spawn_pos, spawn_ok, cells, rows)."""
    return level.spawn_pos, level.spawn_allowed.any(0), level.cells, level.rows


def _stats_at_spawn(p: int):
    """(shield, armour, gadget, charges) of P freshly spawned players."""
    return (jnp.full((p,), G.SPAWN_SHIELD, jnp.float32), jnp.zeros((p,), jnp.float32),
            jnp.full((p,), G.SPAWN_GADGET, jnp.int32),
            jnp.broadcast_to(jnp.asarray(G.START_CHARGES), (p, G.NUM_GADGETS)))


def start_arena(level: Level, agent_pos, key, learners: int = 1) -> ArenaState:
    """The players at the start of an episode: the agent at ``agent_pos`` (float32[2], already spawned),
    the others at free spawn points, all with full spawn stats; bot colours drawn per episode.
    ``learners`` (static): players 0..learners-1 are played by learners, the rest by bots."""
    b = level.bot_valid.shape[0]
    p = b + 1
    k_look, k_spawn = jax.random.split(key)
    playing = jnp.concatenate([jnp.ones((1,), bool), level.bot_valid])
    pos = jnp.zeros((p, 2), jnp.float32).at[0].set(agent_pos)
    yaw = jnp.zeros((p,), jnp.float32)
    for i in range(1, p):
        spot, facing = choose_spawn(*_spawn_args(level), pos, playing & (jnp.arange(p) < i),
                                    jax.random.bits(jax.random.fold_in(k_spawn, i), (2,), jnp.uint32))
        pos, yaw = pos.at[i].set(spot), yaw.at[i].set(facing)
    look = jnp.concatenate([jnp.zeros((1,), jnp.int32),
                            1 + jax.random.permutation(k_look, G.MAX_PLAYERS - 1)[:b].astype(jnp.int32)])
    bot = jnp.concatenate([jnp.zeros((1,), jnp.float32), level.bot_skill]) * (jnp.arange(p) >= learners)
    shield, armour, gadget, charges = _stats_at_spawn(p)
    brain = start_brain(level, BotBrain(steps_to=None, steps_to_pickup=None, quarry=jnp.zeros((p,), jnp.int32),
                                        seen=jnp.zeros((p,), jnp.int32), aim=jnp.zeros((p,), jnp.float32),
                                        strafe=jnp.ones((p,), jnp.float32)), pos, level.pickup_pos)
    zero_p = jnp.zeros((p,), jnp.int32)
    return ArenaState(pos=pos[1:], vel=jnp.zeros((b, 2), jnp.float32), yaw=yaw[1:], pitch=jnp.zeros((b,), jnp.float32),
                      playing=playing, up=playing, down_frames=zero_p, shield=shield, armour=armour, gadget=gadget,
                      charges=charges, cooldown=zero_p, score=zero_p, step_score=zero_p, look=look, bot=bot,
                      shot_from=pos, shot_to=pos, fired=jnp.zeros((p,), bool), shot_gadget=gadget,
                      tagged_by=zero_p - 1, brain=brain)


def _move_others(level: Level, door_open, arena: ArenaState, act, dt):
    """The others' bodies after one frame of ``act`` (float32[B, 7]); players not up stay still."""
    up = arena.up[1:]
    yaw, pitch = look(arena.yaw, arena.pitch, act[:, A.LOOK_LEFT_RIGHT], act[:, A.LOOK_DOWN_UP])
    wish = jax.vmap(wish_direction)(yaw, act[:, A.STRAFE_LEFT_RIGHT], act[:, A.MOVE_BACK_FORWARD])
    speed = C.MAX_SPEED * jnp.any(wish != 0, axis=1)
    vel = jax.vmap(accelerate, in_axes=(0, 0, 0, None, None))(arena.vel, wish, speed, True, dt)
    pos, vel = jax.vmap(move_and_collide, in_axes=(None, None, 0, 0, None))(level, door_open, arena.pos, vel, dt)
    keep = up[:, None]
    return (jnp.where(keep, pos, arena.pos), jnp.where(keep, vel, 0.0), jnp.where(up, yaw, arena.yaw),
            jnp.where(up, pitch, arena.pitch))


def _take_pickups(level: Level, pickup_wait, pickup_pos, pos, arena: ArenaState, shield, armour, fps: int):
    """Players in play take the laser-tag pickups they touch (the lowest-numbered player first; pickups stand
    on cells 100 units apart, so a player touches at most one). Returns (pickup_wait int32[N], shield,
    armour float32[P], gadget int32[P], charges int32[P, G])."""
    slot = level.pickup_kind - FIRST_ARENA_KIND
    arena_kind = level.pickup_valid & (slot >= 0) & (slot < len(_KINDS))
    slot = jnp.clip(slot, 0, len(_KINDS) - 1)
    gives = jnp.asarray(_PICKUP_GADGET)[slot]                                             # [N]
    add_shield, add_armour = jnp.asarray(_PICKUP_SHIELD)[slot], jnp.asarray(_PICKUP_ARMOUR)[slot]
    near = planar_length(pos[None, :, :] - pickup_pos[:, None, :]) < C.PICKUP_DISTANCE   # [N, P]
    wants = ((gives[:, None] >= 0) | ((add_shield[:, None] > 0) & (shield[None, :] < G.MAX_SHIELD))
             | ((add_armour[:, None] > 0) & (armour[None, :] < G.MAX_ARMOUR)))
    can = near & wants & arena.up[None, :] & (arena_kind & (pickup_wait == 0))[:, None]
    took = can & (jnp.arange(pos.shape[0])[None, :] == jnp.argmax(can, axis=1)[:, None])      # [N, P] the first
    got = jnp.any(took, axis=0)                                                           # [P]
    which = jnp.argmax(took, axis=0)                                                      # [P] its pickup
    g = jnp.where(got, gives[which], -1)
    has_gadget = g >= 0
    gi = jnp.maximum(g, 0)
    held = jnp.take_along_axis(arena.charges, gi[:, None], axis=1)[:, 0]
    quantity = jnp.asarray(G.PICKUP_CHARGES)[gi]
    new = jnp.minimum(jnp.where(held < quantity, quantity, held + 1), G.MAX_CHARGES)
    charges = arena.charges.at[jnp.arange(pos.shape[0]), gi].set(jnp.where(has_gadget, new, held))
    gadget = jnp.where(has_gadget, gi, arena.gadget)
    shield = shield + jnp.where(got, jnp.clip(G.MAX_SHIELD - shield, 0.0, add_shield[which]), 0.0)
    armour = armour + jnp.where(got, jnp.clip(G.MAX_ARMOUR - armour, 0.0, add_armour[which]), 0.0)
    wait = jnp.round(jnp.asarray(_PICKUP_SECONDS)[slot] * fps).astype(jnp.int32)
    return jnp.where(jnp.any(took, axis=1), wait, pickup_wait), shield, armour, gadget, charges


def arena_frame(level: Level, door_open, body, arena: ArenaState, act, pickup_wait, pickup_pos, frames,
                fps: int, seed, hurt=None):
    """One frame of laser tag after the agent's own move (see the module docstring).

    body: the agent's (pos float32[2], vel float32[2], z float32[], yaw float32[], pitch float32[]) after its
    move, before its frame started (``old_pos``) as ``body[5]``; act: float32[P, 7] every player's action (row 0
    the agent's); door_open: float32[D] the doors after this frame's move; pickup_wait int32[N], pickup_pos
    float32[N, 2]; frames: int32[] the episode's frame count after this frame (shields decay on whole seconds);
    hurt: float32[] damage the level's hurt zones do to the agent this frame, as a shot of its own (None: none).
    Returns (body (pos, vel, z, yaw, pitch), arena, pickup_wait, reward float32[] the agent's score change,
    finished bool[] the tag limit is reached).
    """
    pos0, vel0, z0, yaw0, pitch0, old_pos0 = body
    arena_score0 = arena.score[0]
    dt = 1.0 / fps
    p = arena.up.shape[0]
    o_pos, o_vel, o_yaw, o_pitch = _move_others(level, door_open, arena, act[1:], dt)
    live = arena.playing & arena.up
    pos, undone = separate(jnp.concatenate([pos0[None], o_pos]), jnp.concatenate([old_pos0[None], arena.pos]), live)
    vel = jnp.where(undone[:, None], 0.0, jnp.concatenate([vel0[None], o_vel]))
    yaw = jnp.concatenate([yaw0[None], o_yaw])
    pitch = jnp.concatenate([pitch0[None], o_pitch])
    feet = jnp.concatenate([z0[None], jnp.zeros((p - 1,), jnp.float32)])

    held = jnp.take_along_axis(arena.charges, arena.gadget[:, None], axis=1)[:, 0]
    firing = live & (act[:, A.FIRE] > 0) & (arena.cooldown == 0) & (held > 0)
    # under vmap only the envs where someone fires this frame cast shots
    shot_args = ((level.cells, level.door_index, door_open), level.rows, pos, feet + C.EYE_HEIGHT, feet, yaw, pitch,
                 firing, live, arena.gadget, seed)
    shots = where_rows(jnp.any(firing), fire, no_shots, shot_args)
    shooters, shot_gadget = pos, arena.gadget
    damage = shots.damage if hurt is None else shots.damage.at[0, 0].add(hurt)
    shield, armour, tagger = take_damage(arena.shield, arena.armour, damage)
    tagged = live & (shield <= 0)
    tagger = jnp.where(tagged, tagger, -1)
    credit = jnp.zeros((p,), jnp.int32).at[jnp.where(tagged, tagger, p)].add(
        jnp.where(tagger == jnp.arange(p), -1, 1), mode="drop")
    score = arena.score + credit

    used = jnp.where(held >= G.UNLIMITED, held, held - firing.astype(jnp.int32))
    charges = arena.charges.at[jnp.arange(p), arena.gadget].set(used)
    rapid_left = charges[:, G.RAPID] > 0
    gadget = jnp.where(used > 0, arena.gadget, jnp.where(rapid_left, G.RAPID, G.IMPULSE))
    refire = jnp.round(jnp.asarray(G.GADGET_REFIRE_MS)[arena.gadget] * fps / 1000.0).astype(jnp.int32)
    cooldown = jnp.where(firing, refire, jnp.maximum(arena.cooldown - 1, 0))

    up = arena.up & ~tagged
    arena = arena.replace(up=up, gadget=gadget, charges=charges)
    pickup_wait, shield, armour, gadget, charges = _take_pickups(level, pickup_wait, pickup_pos, pos, arena,
                                                                 shield, armour, fps)
    second = jnp.mod(frames, fps) == 0
    shield = jnp.where(second & (shield > G.MAX_SHIELD), shield - G.DECAY_PER_SECOND, shield)
    armour = jnp.where(second & (armour > G.MAX_SHIELD), armour - G.DECAY_PER_SECOND, armour)
    down_frames = jnp.where(up, 0, arena.down_frames + 1)

    # tagged players come back one a frame (the lowest-numbered ready one), at a place free of the others
    delay = int(round(G.RESPAWN_DELAY_S * fps))
    forced = delay + int(round(G.FORCED_RESPAWN_S * fps))
    wants = (arena.playing & ~up & ~tagged & (down_frames >= delay)
             & ((arena.bot > 0) | (act[:, A.FIRE] > 0) | (down_frames >= forced)))
    ready = wants & (jnp.arange(p) == jnp.argmax(wants))
    fresh_shield, fresh_armour, fresh_gadget, fresh_charges = _stats_at_spawn(p)
    # a rare event: under vmap only the envs where someone comes back look for a place
    spot, facing = where_rows(jnp.any(ready), choose_spawn, _no_spawn,
                              _spawn_args(level) + (pos, arena.playing & up, seed))
    pos = jnp.where(ready[:, None], spot, pos)
    yaw = jnp.where(ready, facing, yaw)
    up = up | ready
    vel = jnp.where(ready[:, None], 0.0, vel)
    pitch = jnp.where(ready, 0.0, pitch)
    feet = jnp.where(ready, ground(level, spot) if has_heights(level) else 0.0, feet)
    arena = arena.replace(
        pos=pos[1:], vel=vel[1:], yaw=yaw[1:], pitch=pitch[1:], up=up, down_frames=jnp.where(up, 0, down_frames),
        shield=jnp.where(ready, fresh_shield, shield), armour=jnp.where(ready, fresh_armour, armour),
        gadget=jnp.where(ready, fresh_gadget, gadget), charges=jnp.where(ready[:, None], fresh_charges, charges),
        cooldown=jnp.where(ready, 0, cooldown), score=score, shot_from=shooters,
        shot_to=shots.stop, fired=firing, shot_gadget=shot_gadget, tagged_by=tagger)
    finished = jnp.any(score >= G.TAG_LIMIT)
    body = (pos[0], vel[0], feet[0], yaw[0], pitch[0])
    return body, arena, pickup_wait, (score[0] - arena_score0).astype(jnp.float32), finished
