"""Spot the Difference: spot_diff, spot_diff_motion, spot_diff_multi, spot_diff_passive.

A trial is one Level of three rooms side by side (``ROOM_COLS``), each 7 × 5 cells, with its own wall
look. The player starts at the south end of study room A facing its blocks (``N``: the split's scale
value, the blocks per room, on ``N`` of the room's seven block slots). A corridor leads south from
the room to a teleport pad; the pad takes the player to the test room C (``spot_diff_multi``: first
to study room B, whose pad leads to C). The test room holds the blocks of a study room (A; in the
multi task A or B, and C wears that room's wall look) in the same places, except one: the changed
block. Touching the changed block pays ``CHOICE_REWARD``; touching any other block of the test room
ends the trial with nothing; either way the next trial (a new Level) begins.

- spot_diff: the changed block has a new look.
- spot_diff_motion: no look changes; in the study room one block slides to and fro
  (``MOTION_UNITS``, period ``MOTION_PERIOD_SECONDS``); it is the one to touch in the test room.
- spot_diff_multi: two study rooms, the test room copies one of them with one new look.
- spot_diff_passive: as spot_diff, but while the player is in the study room the level moves it
  (``scripted_action``: look left, look right, then walk to the pad); the agent acts only in C.

Block slots sit on rows 1 and 3 of a room, never side by side, so a path to any block can pass
between the others. Stimuli are block looks: the box in 10 colours × 5 patterns, id
``5 colour + pattern``; train ids have ``colour + pattern`` even, holdout ids odd. Each trial uses
distinct looks drawn from the episode's draw. Looks are read back from a Level's pickups.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.memory.splits import Scale, Stimuli
from jaxlab.levels.dmlab.memory.tasks import EpisodeDraw, MemoryTask, MemoryTaskGenerator
from jaxlab.levels.dmlab.units import DEFAULT_FPS
from jaxlab.levels.dmlab.object_catalogue import NUM_OBJECT_COLOURS, NUM_OBJECT_PATTERNS, OBJECT_SHAPES, object_kind
from jaxlab.levels.dmlab.dmlab30 import looks
from jaxlab.levels.dmlab.memory import steering
from jaxlab.levels.dmlab.memory.actions import first_person_action
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, concat_pickups, pickup_set
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy

CHOICE_REWARD = 1.0
MOTION_UNITS = 40.0
MOTION_PERIOD_SECONDS = 1.5
#: seconds the oracle (and the passive script) spends looking at the study room before leaving
STUDY_SECONDS = 1.0
ROOM_ROWS = (1, 5)                       # interior rows of every room, inclusive
#: interior columns of rooms A, B, C, inclusive; two wall columns between rooms, one each
ROOM_COLS = ((1, 7), (10, 16), (19, 25))
GRID = (10, 27)
CORRIDOR_ROWS = (6, 8)
#: block slots, (row, column within the room 0..6)
SLOTS = np.array([[1, 0], [1, 2], [1, 4], [1, 6], [3, 1], [3, 3], [3, 5]], np.int32)
ENTRY_ROW, ENTRY_COL = 5, 3              # where the player enters a room (row, column within the room)
THEME = looks.theme("classic")
ROOM_WALLS = (looks.variation_code("C"), looks.variation_code("Q"))   # looks of study rooms A and B
BOX = OBJECT_SHAPES.index("box")
NUM_LOOKS = NUM_OBJECT_COLOURS * NUM_OBJECT_PATTERNS
BLOCKS_SCALE = Scale("blocks per room", train=(3, 5), interpolate=(4,), extrapolate=(7,), small=(3,), large=(5,))
BLOCK_LOOKS = Stimuli("block looks: box in 10 colours × 5 patterns, id 5 colour + pattern "
                      "(train: colour + pattern even)",
                      train=tuple(i for i in range(NUM_LOOKS) if (i // 5 + i % 5) % 2 == 0),
                      holdout=tuple(i for i in range(NUM_LOOKS) if (i // 5 + i % 5) % 2 == 1))


def block_kind(look) -> jnp.ndarray:
    """int32 (shape of ``look``): the PICKUP_TYPES kind of block look id ``look``."""
    look = jnp.asarray(look, jnp.int32)
    return object_kind(BOX, look // NUM_OBJECT_PATTERNS, look % NUM_OBJECT_PATTERNS).astype(jnp.int32)


def look_of_kind(kind) -> jnp.ndarray:
    """int32 (shape of ``kind``): the block look id of PICKUP_TYPES kind ``kind`` (-1: not a block)."""
    index = jnp.asarray(kind, jnp.int32) - block_kind(0)
    return jnp.where((index >= 0) & (index < NUM_LOOKS), index, -1)


def _grid() -> np.ndarray:
    cells = np.full(GRID, CELL_WALL, np.int8)
    for c0, c1 in ROOM_COLS:
        cells[ROOM_ROWS[0]:ROOM_ROWS[1] + 1, c0:c1 + 1] = CELL_FLOOR
    for c0, _ in ROOM_COLS[:2]:
        cells[CORRIDOR_ROWS[0]:CORRIDOR_ROWS[1] + 1, c0 + ENTRY_COL] = CELL_FLOOR
    return cells


CELLS = _grid()


def room_cell(room: int, rc) -> jnp.ndarray:
    """int32[..., 2] grid (row, col) of room-relative cells ``rc`` (row, column within the room)."""
    rc = jnp.asarray(rc, jnp.int32)
    return jnp.stack([rc[..., 0], rc[..., 1] + ROOM_COLS[room][0]], -1)


def room_of_x(x) -> jnp.ndarray:
    """int32[]: the room (0 A, 1 B, 2 C) the x coordinate (units) lies in."""
    return jnp.searchsorted(jnp.asarray([c1 + 2 for _, c1 in ROOM_COLS[:2]], jnp.float32) * 100.0, x, side="right")


def _xy(rc) -> jnp.ndarray:
    return cell_centre_xy(rc, GRID[0])


class SpotDiff(MemoryTaskGenerator):
    """One split of a spot-the-difference task (``variant``: "plain", "motion", "multi", "passive")."""

    def __init__(self, name, stimulus_ids, scale_values, variant: str):
        super().__init__(name, stimulus_ids, scale_values)
        self.variant = variant
        self.max_blocks = max(self.scale_values)
        self.study_rooms = 2 if variant == "multi" else 1
        self.num_stimuli = self.study_rooms * self.max_blocks + 1

    def _pads(self) -> tuple:
        """(pickups of the teleport pads, destinations float32[T, 2], yaws float32[T])."""
        pads_rc = jnp.asarray([[CORRIDOR_ROWS[1], c0 + ENTRY_COL] for c0, _ in ROOM_COLS[:self.study_rooms]])
        dest_rooms = list(range(1, self.study_rooms)) + [2]
        dest = _xy(jnp.stack([room_cell(r, jnp.array([ENTRY_ROW, ENTRY_COL])) for r in dest_rooms]))
        pads = pickup_set(_xy(pads_rc), looks.TELEPORT_PAD_KIND, 0.0, teleport=jnp.arange(self.study_rooms))
        return pads, dest, jnp.full((self.study_rooms,), 90.0)

    def trial(self, key, draw: EpisodeDraw, trial) -> Level:
        """A new trial: blocks on drawn slots, the copied room and the changed block drawn."""
        k_looks, k_slots, k_change, k_room = jax.random.split(key, 4)
        n = draw.scale
        order = jax.random.permutation(k_looks, draw.stimuli)
        slots = jnp.asarray(SLOTS)[jax.random.permutation(k_slots, len(SLOTS))[:self.max_blocks]]
        present = jnp.arange(self.max_blocks) < n
        changed = jax.random.randint(k_change, (), 0, n)
        copied = jax.random.randint(k_room, (), 0, self.study_rooms)
        study_looks = order[:self.study_rooms * self.max_blocks].reshape(self.study_rooms, self.max_blocks)
        test_looks = study_looks[copied]
        if self.variant != "motion":
            test_looks = test_looks.at[changed].set(order[-1])
        study = [pickup_set(_xy(room_cell(r, slots)), block_kind(study_looks[r]), 0.0, present, takeable=False)
                 for r in range(self.study_rooms)]
        is_changed = jnp.arange(self.max_blocks) == changed
        test = pickup_set(_xy(room_cell(2, slots)), block_kind(test_looks), jnp.where(is_changed, CHOICE_REWARD, 0.0),
                          present, is_goal=True)
        pads, dest, yaws = self._pads()
        walls = jnp.asarray(ROOM_WALLS, jnp.int32)
        col = jnp.arange(GRID[1])
        room = jnp.where(col <= ROOM_COLS[0][1] + 1, 0, jnp.where(col <= ROOM_COLS[1][1] + 1, 1, 2))   # own walls
        letter = jnp.where(room == 2, walls[copied], walls[jnp.minimum(room, 1)])
        variation = jnp.where(jnp.asarray(CELLS) == CELL_WALL, letter[None, :], 0).astype(jnp.int8)
        spawn = _xy(room_cell(0, jnp.array([[ENTRY_ROW, ENTRY_COL]])))
        return assemble_level(CELLS, variation, jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool),
                              concat_pickups(*study, test, pads), spawn, jnp.ones((1,), bool),
                              self.episode_seconds, spawn_yaw=jnp.full((1,), 90.0), theme=THEME,
                              switch_theme=THEME, teleport_pos=dest, teleport_yaw=yaws)

    def _test_blocks(self) -> slice:
        start = self.study_rooms * self.max_blocks
        return slice(start, start + self.max_blocks)

    def shown(self, level: Level, draw: EpisodeDraw, seconds) -> Level:
        """spot_diff_motion: the study block at the changed slot slides along x; others: unchanged."""
        if self.variant != "motion":
            return level
        moving = level.pickup_reward[self._test_blocks()] > 0          # the changed slot
        dx = MOTION_UNITS * jnp.sin(2.0 * jnp.pi * seconds / MOTION_PERIOD_SECONDS)
        shift = jnp.zeros_like(level.pickup_pos).at[:self.max_blocks, 0].set(jnp.where(moving, dx, 0.0))
        return level.replace(pickup_pos=level.pickup_pos + shift)

    def _study_route(self, level: Level, world, trial_frames) -> jnp.ndarray:
        """float32[4]: look over the study room (left, then right), then walk to the room's pad."""
        seconds = trial_frames.astype(jnp.float32) / DEFAULT_FPS
        room = jnp.minimum(room_of_x(world.pos[0]), self.study_rooms - 1)
        pad_xy = level.pickup_pos[self.study_rooms * self.max_blocks + self.max_blocks + room]
        look = steering.look_toward(world.yaw, world.pitch, jnp.where(seconds < 0.5 * STUDY_SECONDS, 120.0, 60.0))
        return jnp.where(seconds < STUDY_SECONDS, look, steering.walk_path(level, world, pad_xy))

    def scripted_action(self, level: Level, world, draw: EpisodeDraw, trial_frames):
        """spot_diff_passive: while in the study room the player is carried (the study route)."""
        if self.variant != "passive":
            return jnp.bool_(False), jnp.zeros((7,), jnp.float32)
        active = room_of_x(world.pos[0]) < 2
        return active, first_person_action(self._study_route(level, world, trial_frames))

    def stimuli_shown(self, level: Level, draw: EpisodeDraw) -> jnp.ndarray:
        """int32[N] the look id of every block pickup (-1: pads and absent blocks)."""
        return jnp.where(level.pickup_valid, look_of_kind(level.pickup_kind), -1)

    def oracle(self, level, world, draw, trial, trial_frames) -> jnp.ndarray:
        """Study, take the pad(s), then walk to the changed block past the others (privileged: the
        rewards are read)."""
        test = self._test_blocks()
        target = level.pickup_pos[test][jnp.argmax(level.pickup_reward[test])]
        others = level.pickup_valid[test] & (level.pickup_reward[test] <= 0)
        rc = steering.cell_of_xy(level, level.pickup_pos[test].T)
        avoid = jnp.zeros(GRID, bool).at[jnp.where(others, rc[0], GRID[0]), rc[1]].set(True, mode="drop")
        choose = steering.walk_path(level, world, target, avoid)
        return jnp.where(room_of_x(world.pos[0]) == 2, choose, self._study_route(level, world, trial_frames))


def _task(name: str, variant: str, summary: str, success: float) -> MemoryTask:
    def build(level_name, stimulus_ids, scale_values):
        return SpotDiff(level_name, stimulus_ids, scale_values, variant)

    return MemoryTask(name=name, kind="first_person", stimuli=BLOCK_LOOKS, scale=BLOCKS_SCALE, build=build,
                      summary=summary, success=success)


TASKS = (
    _task("spot_diff", "plain", "study the blocks, take the pad, touch the block whose look changed", 8.0),
    _task("spot_diff_motion", "motion", "notice which block slides in the study room, touch it in the test room",
          8.0),
    _task("spot_diff_multi", "multi", "study two rooms; the test room copies one with one block changed", 5.0),
    _task("spot_diff_passive", "passive", "carried through the study room, then touch the changed block", 8.0),
)
