"""natlab (DMLab-30): desert terrain, obstacles, mushrooms and spawns, generated on the device.

DMLab's three natlab levels are mushroom foraging on desert terrain with
shrubs, cacti and rocks, at day, dawn or night. DMLab ships prebuilt maps;
this module generates layouts with their documented properties instead:

- ``natlab_varying_map_regrowth``: a playable square of 21 map cells (2100 u;
  DMLab's is 2048 u), terrain random per episode, 5..27 mushrooms that regrow
  after a per-mushroom delay ~ U[r, 3r] s with r ~ U[24, 36] s (mean 60 s).
- ``natlab_varying_map_randomized``: the same size, 10..72 mushrooms that
  never regrow.
- ``natlab_fixed_large_map``: a 30-cell (3000 u) playable square whose
  terrain, obstacles, 40 mushrooms and 10 spawn points come from a constant
  seed (the same every episode); the kernel picks the spawn among the 10.
- All: 120 s episodes; time of day uniform over day, dawn, night per episode.

Geometry. A map of ``rows x cols`` map cells (100 u) is the playable square
plus a far-terrain band of ``BAND`` map cells on every side, drawn but not
walkable. Heights live on a grid of 2 height cells (``HEIGHT_CELL`` = 50 u) per
map cell per axis: height cell (hr, hc) spans x in [50 hc, 50 hc + 50) and
y in [50 (2 rows - 1 - hr), 50 (2 rows - hr)) (y grows against the rows).

Terrain: a sum of ``BUMPS`` random Gaussian hills and hollows (separable in
x and y), normalised to [0, 1] over the playable square and scaled to a relief
(max - min height) drawn from DMLab's per-map range (about 220..810 u), capped
so that 4-adjacent playable height cells differ by at most ``MAX_STEP`` (16 u,
under the player's 18 u step): walkable everywhere by construction. That
slope limit (0.32) usually binds, so reliefs come out at 180..~650 u, median
~285 u (the large map ~310 u): DMLab's steeper maps, up to 810 u, are not
reproduced. Where a steep, narrow bump would leave less than
``RELIEF_FLOOR``, a random plane is mixed in (about 0.6% of maps). The
lowest playable ground is at ``-BASE_FRACTION * relief``. The band continues
the same field (clipped to the playable range) plus a smoothstep rise of
horizon hills that is 0 with zero slope at the playable edge; the map's whole
range stays within ``MAP_RELIEF_MAX``.

Objects (placement in ``natlab_placement``): DMLab's maps hold 0..39 cacti and
1..39 rocks; every obstacle is a sprite the renderer scans per column, so this
generator caps them at 0..8 cacti, 1..8 rocks and 0..8 shrubs (24 slots;
the fixed large map holds 8 of each).
Randomness: a few words from ``jax.random.bits(key)``, the rest from the
counter hash of ``procedural.rng``. Same key, same layout: jitted or not, at
any batch size.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.dmlab.dmlab30 import natlab_placement as placement
from jaxlab.levels.dmlab.heights import HEIGHT_CELL, HEIGHT_CELLS_PER_CELL
from jaxlab.levels.dmlab.procedural.rng import hash_words, uniform_below, unit_interval
from jaxlab.levels.dmlab.units import CELL_SIZE

BAND = 2                           # far-terrain map cells on every side of the playable square
MAX_STEP = 16.0                    # u, the most 4-adjacent playable height cells differ
RELIEF_RANGE = (220.0, 810.0)      # u, the per-episode relief draw (DMLab: -55..169 up to -253..561)
MAP_RELIEF_MAX = 810.0             # u, the most the whole map (band included) spans
BASE_FRACTION = 0.3                # the lowest playable ground is at -BASE_FRACTION * relief
HORIZON_RISE = (100.0, 300.0)      # u, horizon hills at the band's outer edge (before the cap)
BUMPS = 24                         # Gaussian hills/hollows per terrain
BUMP_SIGMA = (300.0, 700.0)        # u, the x spread of a bump
BUMP_ASPECT = (0.6, 1.6)           # y spread / x spread
RELIEF_FLOOR = 180.0               # u, the least relief the slope cap may leave (else the field is tilted)
TILT_MIX = (0.0, 0.35, 0.7, 1.0)   # weights of a random plane mixed in until the relief floor holds
EPISODE_SECONDS = 120.0
SPAWNS = 10                        # spawn points per layout
TIME_OF_DAY = ("day", "dawn", "night")
FIXED_MAP_SEED = (0x6E61746C, 0x000F1ED1)   # the seed words of natlab_fixed_large_map's map

# hash streams of the terrain and the episode draws
_S_BUMPS, _S_RELIEF, _S_TIME = 1, 2, 3


@dataclasses.dataclass(frozen=True)
class NatlabVariant:
    """Static configuration of one natlab level (Python values; hashable).

    name: the DMLab-30 level name. playable: side of the playable square in
    map cells (100 u). mushrooms: (min, max) mushroom count, drawn uniformly.
    regrow: whether mushrooms regrow (delays in ``mushroom_respawn_seconds``).
    fixed_map: terrain, obstacles, mushrooms and spawns from ``FIXED_MAP_SEED``
    rather than the episode key. cacti, rocks, shrubs: (min, max) counts, each
    max at most ``natlab_placement.PER_KIND``.
    """

    name: str
    playable: int
    mushrooms: Tuple[int, int]
    regrow: bool = False
    fixed_map: bool = False
    cacti: Tuple[int, int] = (0, 8)
    rocks: Tuple[int, int] = (1, 8)
    shrubs: Tuple[int, int] = (0, 8)
    episode_seconds: float = EPISODE_SECONDS

    def __post_init__(self):
        if not isinstance(self.playable, int) or not 4 <= self.playable <= 120:
            raise ValueError(f"NatlabVariant.playable={self.playable!r} must be an int in 4..120 (map cells)")
        for field in ("mushrooms", "cacti", "rocks", "shrubs"):
            lo, hi = getattr(self, field)
            top = 1000 if field == "mushrooms" else placement.PER_KIND
            if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= lo <= hi <= top):
                raise ValueError(f"NatlabVariant.{field}={(lo, hi)!r} must be ints 0 <= min <= max <= {top}")
        if self.mushrooms[1] < 1:
            raise ValueError("NatlabVariant.mushrooms: the max must be >= 1")

    @property
    def rows(self) -> int:
        """Map cells per side, band included: playable + 2 * BAND."""
        return self.playable + 2 * BAND

    @property
    def height_cells(self) -> int:
        """Height cells per side: 2 * rows."""
        return HEIGHT_CELLS_PER_CELL * self.rows

    @property
    def max_mushrooms(self) -> int:
        """M, the length of the mushroom arrays."""
        return self.mushrooms[1]

    @property
    def bounds(self) -> Tuple[float, float]:
        """(lo, hi) u: the playable square is [lo, hi] in both x and y."""
        return BAND * CELL_SIZE, (BAND + self.playable) * CELL_SIZE


REGROWTH = NatlabVariant("natlab_varying_map_regrowth", playable=21, mushrooms=(5, 27), regrow=True)
RANDOMIZED = NatlabVariant("natlab_varying_map_randomized", playable=21, mushrooms=(10, 72))
FIXED_LARGE = NatlabVariant("natlab_fixed_large_map", playable=30, mushrooms=(40, 40), fixed_map=True,
                            cacti=(8, 8), rocks=(8, 8), shrubs=(8, 8))
VARIANTS = {v.name: v for v in (REGROWTH, RANDOMIZED, FIXED_LARGE)}


@struct.dataclass
class NatlabLayout:
    """One natlab layout (N = 2 * rows height cells per side, O = natlab_placement.OBSTACLES,
    M = variant.max_mushrooms, S = SPAWNS). Positions are world (x, y) in u.

    floor_z: f32[N, N] ground height (u) per height cell.
    obstacle_pos f32[O, 2]; obstacle_kind int32[O] (0 cactus, 1 rock: solid; 2 shrub: not solid);
    obstacle_scale f32[O] size factor in [0.7, 1.3]; obstacle_yaw f32[O] degrees in [0, 360);
    obstacle_radius f32[O] solid radius (u, 0 for shrubs); obstacle_height f32[O] (u);
    obstacle_valid bool[O].
    mushroom_pos f32[M, 2]; mushroom_valid bool[M]; mushroom_respawn_seconds f32[M] regrowth
    delay (s), -1 = never (and on invalid slots).
    spawn_pos f32[S, 2]; spawn_valid bool[S]. time_of_day int32[] 0 day, 1 dawn, 2 night.
    """

    floor_z: jnp.ndarray
    obstacle_pos: jnp.ndarray
    obstacle_kind: jnp.ndarray
    obstacle_scale: jnp.ndarray
    obstacle_yaw: jnp.ndarray
    obstacle_radius: jnp.ndarray
    obstacle_height: jnp.ndarray
    obstacle_valid: jnp.ndarray
    mushroom_pos: jnp.ndarray
    mushroom_valid: jnp.ndarray
    mushroom_respawn_seconds: jnp.ndarray
    spawn_pos: jnp.ndarray
    spawn_valid: jnp.ndarray
    time_of_day: jnp.ndarray


def playable_cells(variant: NatlabVariant) -> np.ndarray:
    """bool[rows, rows] (static numpy): map cells of the playable square (False on the band)."""
    n = variant.rows
    inside = (np.arange(n) >= BAND) & (np.arange(n) < n - BAND)
    return inside[:, None] & inside[None, :]


def playable_height_cells(variant: NatlabVariant) -> np.ndarray:
    """bool[N, N] (static numpy, N = 2 * rows): height cells of the playable square."""
    k = HEIGHT_CELLS_PER_CELL
    return np.repeat(np.repeat(playable_cells(variant), k, 0), k, 1)


def height_cell_centres(variant: NatlabVariant) -> Tuple[np.ndarray, np.ndarray]:
    """(x f32[N] of the columns, y f32[N] of the rows): height cell centres in u (static numpy)."""
    n = variant.height_cells
    x = (np.arange(n) + 0.5) * HEIGHT_CELL
    return x.astype(np.float32), x[::-1].astype(np.float32).copy()


def _band_depth(variant: NatlabVariant) -> np.ndarray:
    """f32[N, N] (static): distance (u) from each height cell centre to the playable square, 0 inside."""
    x, y = height_cell_centres(variant)
    lo, hi = variant.bounds
    dx = np.maximum(np.maximum(lo - x, x - hi), 0.0)[None, :]
    dy = np.maximum(np.maximum(lo - y, y - hi), 0.0)[:, None]
    return np.hypot(dx, dy).astype(np.float32)


def _lerp(span, t):
    """span[0] + (span[1] - span[0]) * t (t: f32[...] in [0, 1])."""
    return span[0] + (span[1] - span[0]) * t


def _field(seed, variant: NatlabVariant) -> jnp.ndarray:
    """f32[N, N] the raw bump field (arbitrary units): BUMPS separable Gaussians of signed height."""
    x, y = height_cell_centres(variant)
    size = variant.height_cells * HEIGHT_CELL
    u = unit_interval(hash_words(seed, _S_BUMPS, jnp.arange(5 * BUMPS, dtype=jnp.uint32))).reshape(5, BUMPS)
    sx = _lerp(BUMP_SIGMA, u[2])
    sy = sx * _lerp(BUMP_ASPECT, u[3])
    amp = (2.0 * u[4] - 1.0) * jnp.sqrt(sx * sy)
    gx = jnp.exp(-0.5 * jnp.square((x[None, :] - u[0][:, None] * size) / sx[:, None]))   # [B, N] columns
    gy = jnp.exp(-0.5 * jnp.square((y[None, :] - u[1][:, None] * size) / sy[:, None]))   # [B, N] rows
    return jnp.einsum("br,bc->rc", amp[:, None] * gy, gx, precision=jax.lax.Precision.HIGHEST)


def _max_step(z, play: np.ndarray) -> jnp.ndarray:
    """f32[]: the largest |difference| between 4-adjacent height cells both in ``play`` (bool[N, N])."""
    across = jnp.where(play[:, 1:] & play[:, :-1], jnp.abs(z[:, 1:] - z[:, :-1]), 0.0)
    down = jnp.where(play[1:, :] & play[:-1, :], jnp.abs(z[1:, :] - z[:-1, :]), 0.0)
    return jnp.maximum(jnp.max(across), jnp.max(down))


def _normalised(f, play: np.ndarray) -> jnp.ndarray:
    """f32[N, N]: ``f`` mapped so that its playable cells (``play`` bool[N, N]) span [0, 1]."""
    f_lo = jnp.min(jnp.where(play, f, jnp.inf))
    f_hi = jnp.max(jnp.where(play, f, -jnp.inf))
    return (f - f_lo) / jnp.maximum(f_hi - f_lo, 1e-6)


def _walkable_field(seed, variant: NatlabVariant):
    """(norm f32[N, N] spanning [0, 1] over the playable square, cap f32[] u, tilt f32[]).

    norm is the bump field mixed with a random plane by the first TILT_MIX
    weight ``tilt`` whose slope cap (the largest relief keeping 4-adjacent
    playable cells within MAX_STEP) is at least RELIEF_FLOOR; weight 1, the
    plane alone, always qualifies (its cap is over 600 u).
    """
    play = playable_height_cells(variant)
    x, y = height_cell_centres(variant)
    angle = 2.0 * jnp.pi * unit_interval(hash_words(seed, _S_RELIEF, jnp.uint32(2)))
    plane = _normalised(jnp.cos(angle) * x[None, :] + jnp.sin(angle) * y[:, None], play)
    bumps = _normalised(_field(seed, variant), play)

    def mix(a):
        return bumps + a * (plane - bumps)

    def cap(a):
        m = mix(a)
        span = jnp.max(jnp.where(play, m, -jnp.inf)) - jnp.min(jnp.where(play, m, jnp.inf))
        # 0.999: float32 rounding of relief * norm never pushes a step past MAX_STEP
        return 0.999 * MAX_STEP * span / jnp.maximum(_max_step(m, play), 1e-6)

    caps = jnp.stack([cap(a) for a in TILT_MIX])
    pick = jnp.argmax(caps >= RELIEF_FLOOR)
    tilt = jnp.asarray(TILT_MIX, jnp.float32)[pick]
    return _normalised(mix(tilt), play), caps[pick], tilt


def tilt_weight(seed, variant: NatlabVariant) -> jnp.ndarray:
    """f32[]: the TILT_MIX weight ``terrain`` uses for seed words uint32[2] (0 = bumps alone)."""
    return _walkable_field(seed, variant)[2]


def terrain(seed, variant: NatlabVariant) -> jnp.ndarray:
    """f32[N, N] ground height (u) per height cell (N = 2 * variant.rows) from seed words uint32[2].

    The walkable field scaled to the relief min(U[RELIEF_RANGE], its slope
    cap), so at least RELIEF_FLOOR; the lowest playable ground at
    -BASE_FRACTION * relief; the band adds horizon hills, the whole map
    spanning at most MAP_RELIEF_MAX.
    """
    norm, cap, _ = _walkable_field(seed, variant)
    u = unit_interval(hash_words(seed, _S_RELIEF, jnp.arange(2, dtype=jnp.uint32)))
    relief = jnp.minimum(_lerp(RELIEF_RANGE, u[0]), cap)
    rise = jnp.clip(MAP_RELIEF_MAX - relief, 0.0, _lerp(HORIZON_RISE, u[1]))
    t = np.clip(_band_depth(variant) / (BAND * CELL_SIZE), 0.0, 1.0)
    smooth = (t * t * (3.0 - 2.0 * t)).astype(np.float32)     # 0 with zero slope at the playable edge
    clipped = jnp.clip(norm, 0.0, 1.0)
    return relief * (clipped - BASE_FRACTION) + rise * smooth * (0.5 + 0.5 * clipped)


def map_seed(key: jax.Array, variant: NatlabVariant) -> jnp.ndarray:
    """uint32[2] the seed words of the map (terrain, objects, spawns): FIXED_MAP_SEED or from ``key``."""
    if variant.fixed_map:
        return jnp.asarray(FIXED_MAP_SEED, jnp.uint32)
    return jax.random.bits(key, (2,), jnp.uint32)


def natlab_layout(key: jax.Array, variant: NatlabVariant) -> NatlabLayout:
    """One natlab layout for ``variant`` (static) from ``key`` (typed or raw uint32[2]).

    Terrain, obstacles, mushrooms (count, positions, regrowth delays) and spawn
    points come from the key, or from FIXED_MAP_SEED when ``variant.fixed_map``;
    time of day always from the key. Shapes in ``NatlabLayout``. Pure; vmap
    over keys. Always compiled (``variant`` static): called outside jit it runs
    the same XLA code as inside, so eager and jitted layouts agree bit for bit
    (op-by-op eager float rounding would differ in the last bit).
    """
    if not isinstance(variant, NatlabVariant):
        raise TypeError(f"natlab_layout: variant must be a NatlabVariant, got {type(variant).__name__}")
    return _layout(key, variant)


@functools.partial(jax.jit, static_argnames=("variant",))
def _layout(key: jax.Array, variant: NatlabVariant) -> NatlabLayout:
    """natlab_layout's body (compiled per variant)."""
    episode = jax.random.bits(key, (2,), jnp.uint32)
    seed = map_seed(key, variant)
    floor_z = terrain(seed, variant)
    obstacles = placement.place_obstacles(seed, variant)
    mushrooms = placement.place_mushrooms(seed, variant, obstacles)
    spawns = placement.place_spawns(seed, variant, obstacles, mushrooms[0], mushrooms[1], SPAWNS)
    time_of_day = uniform_below(hash_words(episode, _S_TIME, jnp.uint32(0)), len(TIME_OF_DAY))
    return NatlabLayout(floor_z=floor_z, obstacle_pos=obstacles.pos, obstacle_kind=obstacles.kind,
                        obstacle_scale=obstacles.scale, obstacle_yaw=obstacles.yaw,
                        obstacle_radius=obstacles.radius, obstacle_height=obstacles.height,
                        obstacle_valid=obstacles.valid, mushroom_pos=mushrooms[0],
                        mushroom_valid=mushrooms[1], mushroom_respawn_seconds=mushrooms[2],
                        spawn_pos=spawns[0], spawn_valid=spawns[1], time_of_day=time_of_day)
