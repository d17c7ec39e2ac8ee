"""natlab (DMLab-30): obstacles, mushrooms and spawn points placed on the device with fixed shapes.

Placement is rejection sampling with a fixed number of candidates: a
``lax.fori_loop`` walks one stream of uniform candidate points (counter
hash), each tested against everything placed before for the slot being
filled, which takes it when clear. A slot that fails ``SLOT_TRIES`` times,
or that the stream's budget does not reach, is left invalid (the fallback:
that object is dropped; the tests check it is never hit in 10,000 layouts of
each varying level). Positions are world (x, y) in u inside the playable
square ``variant.bounds``.

Obstacles (DMLab: 0..39 cacti, 1..39 rocks; here capped at ``PER_KIND`` each,
as every obstacle is a sprite the renderer scans per column):
- cactus (kind 0, solid): radius 20..27 u, height 231..360 u;
- rock (kind 1, solid): radius 19..77 u (half of DMLab's 38..155 u extent),
  height 35..142 u;
- shrub (kind 2, not solid, radius 0): height 60..200 u, ``SHRUB_SPREAD`` wide.
One draw t ~ U[0, 1] per obstacle sets its radius, height and
``scale = 0.7 + 0.6 t`` together. Every obstacle has a footprint (its solid
radius, or a shrub's spread). Two footprints, and a footprint and the
playable edge, keep ``2 * PLAYER_RADIUS + OBSTACLE_GAP`` (``PLAYER_RADIUS +
OBSTACLE_GAP``) apart: the player passes between any two, so no ground is
cut off.
Mushrooms and spawns keep ``PLAYER_RADIUS + OBJECT_CLEARANCE`` from every
footprint and ``EDGE_MARGIN`` from the playable edge; mushrooms lie
``MUSHROOM_SPACING`` apart (DMLab's nearest neighbours: median 231 u / 151 u,
10th percentile 99 / 67 u); spawns ``SPAWN_SPACING`` apart and
``SPAWN_MUSHROOM_GAP`` from mushrooms.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.dmlab.procedural.rng import hash_words, uniform_below, unit_interval
from jaxlab.levels.dmlab.units import PLAYER_RADIUS

CACTUS, ROCK, SHRUB = 0, 1, 2
PER_KIND = 8                          # obstacle slots per kind
OBSTACLES = 3 * PER_KIND              # O
#: int32[O] the kind of each slot: rocks first (largest, placed while the square is empty), then cacti, shrubs
SLOT_KIND = np.repeat(np.array([ROCK, CACTUS, SHRUB], np.int32), PER_KIND)
SLOT_RANK = np.tile(np.arange(PER_KIND, dtype=np.int32), 3)   # index of a slot within its kind
SCALE = (0.7, 1.3)
#: per kind (cactus, rock, shrub): solid radius (u) and height (u) at t = 0 and t = 1
RADIUS = np.array([[20.0, 27.0], [19.0, 77.0], [0.0, 0.0]], np.float32)
HEIGHT = np.array([[231.0, 360.0], [35.0, 142.0], [60.0, 200.0]], np.float32)
SHRUB_SPREAD = (30.0, 55.0)           # u, a shrub's footprint radius at t = 0 and t = 1
OBSTACLE_GAP = 80.0                   # u of free passage around every obstacle (beyond the player's width)
OBJECT_CLEARANCE = 40.0               # u beyond PLAYER_RADIUS between a footprint and a mushroom or spawn
EDGE_MARGIN = 50.0                    # u between a mushroom or spawn and the playable edge
MUSHROOM_SPACING = 60.0               # u between mushrooms
SPAWN_SPACING = 150.0                 # u between spawn points
SPAWN_MUSHROOM_GAP = 80.0             # u between a spawn point and a mushroom
RESPAWN_BASE = (24.0, 36.0)           # s, r per mushroom; each regrowth delay ~ U[r, 3r]
SLOT_TRIES = 24                       # failed candidates after which a slot gives up (stays invalid)
OBSTACLE_BUDGET = 4 * OBSTACLES       # candidates for all obstacles of a layout
PLACE_SPARE = 32                      # candidates beyond 2 per slot for mushrooms and spawns

# hash streams
_S_COUNTS, _S_OBSTACLE, _S_OBSTACLE_XY, _S_MUSHROOM, _S_MUSHROOM_XY, _S_SPAWN_XY = 10, 11, 12, 13, 14, 15


@struct.dataclass
class Obstacles:
    """The obstacles of one layout (O = OBSTACLES slots; kinds in ``SLOT_KIND``).

    pos f32[O, 2] (x, y) u; kind int32[O]; scale f32[O]; yaw f32[O] degrees;
    radius f32[O] solid radius u (0 = not solid); height f32[O] u;
    footprint f32[O] u (radius, or a shrub's spread); valid bool[O].
    """

    pos: jnp.ndarray
    kind: jnp.ndarray
    scale: jnp.ndarray
    yaw: jnp.ndarray
    radius: jnp.ndarray
    height: jnp.ndarray
    footprint: jnp.ndarray
    valid: jnp.ndarray


def _place(seed, stream: int, want, lo, hi, reach, budget: int, slot_tries: int, others=None):
    """Fill the wanted slots, in slot order, from one stream of ``budget`` uniform candidates.

    want bool[S]; lo, hi f32[S] u: slot s draws its candidates uniformly in
    the square [lo[s], hi[s]]^2; reach f32[S] u: slots i and j keep
    reach[i] + reach[j] apart. others: (pos f32[P, 2], gap f32[P] u,
    valid bool[P]) that every candidate keeps ``gap`` from, or None. Each
    iteration tests one candidate for the current slot: taken if clear,
    else the slot gives up after ``slot_tries`` failures (the fallback: the
    slot stays invalid), as do the slots left when the budget runs out.
    Returns (pos f32[S, 2] (0 where invalid), valid bool[S]).
    """
    s = want.shape[0]
    u = unit_interval(hash_words(seed, stream, jnp.arange(2 * budget, dtype=jnp.uint32))).reshape(budget, 2)
    order = jnp.argsort(~want, stable=True)          # wanted slots first, in slot order
    wanted = jnp.sum(want)
    slots = jnp.arange(s)

    def body(t, carry):
        pos, valid, j, tries = carry
        slot = order[jnp.minimum(j, s - 1)]
        c = lo[slot] + (hi[slot] - lo[slot]) * u[t]
        d2 = jnp.sum(jnp.square(c[None, :] - pos), -1)
        ok = jnp.all((d2 >= jnp.square(reach[slot] + reach)) | ~valid)
        if others is not None:
            o_pos, o_gap, o_valid = others
            ok &= jnp.all((jnp.sum(jnp.square(c[None, :] - o_pos), -1) >= jnp.square(o_gap)) | ~o_valid)
        active = j < wanted
        take = (slots == slot) & active & ok
        advance = active & (ok | (tries + 1 >= slot_tries))
        return (jnp.where(take[:, None], c[None, :], pos), valid | take, j + advance.astype(jnp.int32),
                jnp.where(advance, 0, tries + 1))

    init = (jnp.zeros((s, 2), jnp.float32), jnp.zeros((s,), bool), jnp.int32(0), jnp.int32(0))
    pos, valid, _, _ = jax.lax.fori_loop(0, budget, body, init)
    return pos, valid


def obstacle_counts(seed, variant) -> jnp.ndarray:
    """int32[3] the wanted (cacti, rocks, shrubs), each uniform in the variant's (min, max)."""
    spans = np.array([variant.cacti, variant.rocks, variant.shrubs], np.int32)          # [3, 2] per kind
    words = hash_words(seed, _S_COUNTS, jnp.arange(3, dtype=jnp.uint32))
    return jnp.asarray(spans[:, 0]) + uniform_below(words, jnp.asarray(spans[:, 1] - spans[:, 0] + 1))


def mushroom_count(seed, variant) -> jnp.ndarray:
    """int32[] the wanted mushroom count, uniform in variant.mushrooms."""
    lo_n, hi_n = variant.mushrooms
    return lo_n + uniform_below(hash_words(seed, _S_MUSHROOM, jnp.uint32(0)), hi_n - lo_n + 1)


def place_obstacles(seed, variant) -> Obstacles:
    """Obstacles from seed words uint32[2] for ``variant`` (a NatlabVariant: counts, bounds).

    Counts per kind from ``obstacle_counts``; sizes, yaws and positions as in
    the module docstring. Returns ``Obstacles`` with O slots.
    """
    kind = jnp.asarray(SLOT_KIND)
    want = jnp.asarray(SLOT_RANK) < obstacle_counts(seed, variant)[kind]
    u = unit_interval(hash_words(seed, _S_OBSTACLE, jnp.arange(2 * OBSTACLES, dtype=jnp.uint32))).reshape(2, OBSTACLES)
    t, yaw = u[0], 360.0 * u[1]
    radius = jnp.asarray(RADIUS[:, 0])[kind] + jnp.asarray(RADIUS[:, 1] - RADIUS[:, 0])[kind] * t
    height = jnp.asarray(HEIGHT[:, 0])[kind] + jnp.asarray(HEIGHT[:, 1] - HEIGHT[:, 0])[kind] * t
    spread = SHRUB_SPREAD[0] + (SHRUB_SPREAD[1] - SHRUB_SPREAD[0]) * t
    footprint = jnp.where(kind == SHRUB, spread, radius)
    lo, hi = variant.bounds
    inset = footprint + PLAYER_RADIUS + OBSTACLE_GAP
    pos, valid = _place(seed, _S_OBSTACLE_XY, want, lo + inset, hi - inset,
                        footprint + PLAYER_RADIUS + 0.5 * OBSTACLE_GAP, OBSTACLE_BUDGET, SLOT_TRIES)
    return Obstacles(pos=pos, kind=kind, scale=SCALE[0] + (SCALE[1] - SCALE[0]) * t, yaw=yaw,
                     radius=radius, height=height, footprint=footprint, valid=valid)


def place_mushrooms(seed, variant, obstacles: Obstacles):
    """Mushrooms from seed words uint32[2]: (pos f32[M, 2] u, valid bool[M], respawn_seconds f32[M]).

    M = variant.max_mushrooms; the count from ``mushroom_count``.
    respawn_seconds: when ``variant.regrow``, r ~ U[RESPAWN_BASE] and a delay
    ~ U[r, 3 r] s per mushroom (mean 60 s); -1 (never) otherwise and on
    invalid slots.
    """
    m = variant.max_mushrooms
    count = mushroom_count(seed, variant)
    lo, hi = variant.bounds
    clear = (obstacles.pos, obstacles.footprint + PLAYER_RADIUS + OBJECT_CLEARANCE, obstacles.valid)
    edge = jnp.ones((m,), jnp.float32)
    pos, valid = _place(seed, _S_MUSHROOM_XY, jnp.arange(m) < count, (lo + EDGE_MARGIN) * edge,
                        (hi - EDGE_MARGIN) * edge, 0.5 * MUSHROOM_SPACING * edge,
                        2 * m + PLACE_SPARE, SLOT_TRIES, clear)
    u = unit_interval(hash_words(seed, _S_MUSHROOM, jnp.arange(1, 2 * m + 1, dtype=jnp.uint32))).reshape(2, m)
    base = RESPAWN_BASE[0] + (RESPAWN_BASE[1] - RESPAWN_BASE[0]) * u[0]
    delay = base * (1.0 + 2.0 * u[1])
    respawn = jnp.where(valid, delay, -1.0) if variant.regrow else jnp.full((m,), -1.0, jnp.float32)
    return pos, valid, respawn


def place_spawns(seed, variant, obstacles: Obstacles, mushroom_pos, mushroom_valid, spawns: int = 10):
    """Spawn points from seed words uint32[2]: (pos f32[spawns, 2] u, valid bool[spawns]).

    Clear of obstacles and the edge like mushrooms, SPAWN_MUSHROOM_GAP from
    every valid mushroom (f32[M, 2], bool[M]), SPAWN_SPACING apart.
    """
    lo, hi = variant.bounds
    m = mushroom_pos.shape[0]
    clear = (jnp.concatenate([obstacles.pos, mushroom_pos]),
             jnp.concatenate([obstacles.footprint + PLAYER_RADIUS + OBJECT_CLEARANCE,
                              jnp.full((m,), SPAWN_MUSHROOM_GAP, jnp.float32)]),
             jnp.concatenate([obstacles.valid, mushroom_valid]))
    edge = jnp.ones((spawns,), jnp.float32)
    return _place(seed, _S_SPAWN_XY, edge > 0, (lo + EDGE_MARGIN) * edge, (hi - EDGE_MARGIN) * edge,
                  0.5 * SPAWN_SPACING * edge, 2 * spawns + PLACE_SPARE, SLOT_TRIES, clear)
