"""Goal navigation in square arenas: invisible_goal_empty_arena, invisible_goal_with_buildings,
visible_goal_with_buildings.

An episode is one square arena of ``n`` × ``n`` open cells (``n``: the split's scale value, the
arena side) inside a ring of wall; shorter arenas of a split are padded with wall to the split's
largest, so every Level of a split has one shape. A goal cell is drawn per episode and holds for the
whole episode (``new_level_per_trial = False``); reaching it pays ``GOAL_REWARD`` and restarts the
map: the player respawns on a random open cell at least two cells from the goal, facing a random
way, and must find the goal again, now from memory.

- invisible_goal_empty_arena: the goal is a hidden platform (never drawn, ``Level.platform_*``); the
  only cues are the four walls, each in its own look (stimuli: the four wall looks).
- invisible_goal_with_buildings: the same hidden goal; the walls are plain and ``NUM_BUILDINGS``
  buildings (one-cell towers of wall, as tall as the walls) stand inside the arena, each in its own
  look (stimuli: the building looks).
- visible_goal_with_buildings: the buildings, and a visible goal object (DMLab's goal pickup).

Stimulus ids are wall looks: id ``i`` is wall variation letter ``i`` ('A' + i), 26 of them, split
by parity (train even letters, holdout odd). Stimuli are read back from a Level by its variation
codes (``stimuli_shown``).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.dmlab30 import looks
from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.memory import steering
from jaxlab.levels.dmlab.memory.splits import Scale, Stimuli, even_odd
from jaxlab.levels.dmlab.memory.tasks import EpisodeDraw, MemoryTask, MemoryTaskGenerator
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy, sample_cells

GOAL_REWARD = 10.0
#: radius (units) of the hidden platform: half a cell
PLATFORM_RADIUS = 0.5 * CELL_SIZE
#: buildings in the arenas that have them
NUM_BUILDINGS = 4
#: nearest a respawn may be to the goal, in cells (Chebyshev distance)
MIN_SPAWN_CELLS = 2
NUM_WALL_LOOKS = 26
ARENA_THEME = looks.theme("garden")
#: arena side (open cells): train 7 and 11, between them 9, beyond them 15
ARENA_SCALE = Scale("arena side (cells)", train=(7, 11), interpolate=(9,), extrapolate=(15,), small=(7,),
                    large=(11,))
WALL_LOOKS = Stimuli("wall looks (variation letters A..Z: train even, holdout odd)", *even_odd(NUM_WALL_LOOKS))


class ArenaGoal(MemoryTaskGenerator):
    """One split of an arena task. ``buildings``: towers inside the arena carry the stimuli (else the
    four walls do); ``visible``: the goal is a visible object (else a hidden platform)."""

    new_level_per_trial = False

    def __init__(self, name, stimulus_ids, scale_values, *, buildings: bool, visible: bool):
        super().__init__(name, stimulus_ids, scale_values)
        self.buildings, self.visible = buildings, visible
        self.num_stimuli = NUM_BUILDINGS if buildings else 4
        self.side = max(self.scale_values) + 2          # grid side, wall ring included

    def _arena(self, n):
        """(inside bool[S, S] the n × n open cells, ring bool[S, S] their wall ring, side int32[S, S]
        0..3 = top, bottom, left, right for ring cells)."""
        idx = jnp.arange(self.side)
        r, c = idx[:, None], idx[None, :]
        inside = (r >= 1) & (r <= n) & (c >= 1) & (c <= n)
        ring = (r >= 0) & (r <= n + 1) & (c >= 0) & (c <= n + 1) & ~inside
        side = jnp.where(r == 0, 0, jnp.where(r == n + 1, 1, jnp.where(c == 0, 2, 3)))
        return inside, ring, side

    def trial(self, key, draw: EpisodeDraw, trial) -> Level:
        """The episode's arena (``trial`` unused: one Level per episode)."""
        k_goal, k_build = jax.random.split(key)
        inside, ring, side = self._arena(draw.scale)
        goal_rc = sample_cells(k_goal, inside, 1)[0][0]
        letter = draw.stimuli.astype(jnp.int32) + 1                 # variation code of each look
        if self.buildings:
            r, c = jnp.arange(self.side)[:, None], jnp.arange(self.side)[None, :]
            near_goal = (jnp.abs(r - goal_rc[0]) <= 1) & (jnp.abs(c - goal_rc[1]) <= 1)
            not_at_wall = (r >= 2) & (r <= draw.scale - 1) & (c >= 2) & (c <= draw.scale - 1)
            sites, ok = sample_cells(k_build, inside & not_at_wall & ~near_goal, NUM_BUILDINGS)
            site_rows = jnp.where(ok, sites[:, 0], self.side)       # unplaced buildings scatter out
            building = jnp.zeros((self.side, self.side), jnp.int32).at[site_rows, sites[:, 1]].set(
                letter, mode="drop")
            open_ = inside & (building == 0)
            variation = building
        else:
            open_ = inside
            variation = jnp.where(ring, letter[side], 0)
        cells = jnp.where(open_, CELL_FLOOR, CELL_WALL).astype(jnp.int8)
        goal_xy = cell_centre_xy(goal_rc, self.side)
        rr, cc = jnp.meshgrid(jnp.arange(self.side), jnp.arange(self.side), indexing="ij")
        far = jnp.maximum(jnp.abs(rr - goal_rc[0]), jnp.abs(cc - goal_rc[1])) >= MIN_SPAWN_CELLS
        spawn_rc = jnp.stack([rr.reshape(-1), cc.reshape(-1)], -1)
        if self.visible:
            pickups = pickup_set(goal_xy[None], PICKUP_INDEX["goal"], GOAL_REWARD, is_goal=True)
            platform = dict()
        else:
            pickups = pickup_set(jnp.zeros((1, 2)), 0, 0.0, False, takeable=False)    # none (N >= 1)
            platform = dict(platform_pos=goal_xy, platform_radius=PLATFORM_RADIUS, platform_seconds=0.0,
                            platform_reward=GOAL_REWARD)
        return assemble_level(cells, variation.astype(jnp.int8), jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool),
                              pickups, cell_centre_xy(spawn_rc, self.side), (open_ & far).reshape(-1),
                              self.episode_seconds, theme=ARENA_THEME, switch_theme=ARENA_THEME, **platform)

    def goal_xy(self, level: Level) -> jnp.ndarray:
        """float32[2] (x, y) units of the level's goal (the platform, or the visible goal object)."""
        return level.pickup_pos[0] if self.visible else level.platform_pos

    def stimuli_shown(self, level: Level, draw: EpisodeDraw) -> jnp.ndarray:
        """int32[S*S] the wall look id of every cell that has one (-1 elsewhere)."""
        v = level.variation.astype(jnp.int32).reshape(-1)
        return jnp.where(v > 0, v - 1, -1)

    def oracle(self, level, world, draw, trial, trial_frames) -> jnp.ndarray:
        """Walk the shortest way to the goal (privileged: the hidden platform's place is read)."""
        return steering.walk_path(level, world, self.goal_xy(level))


def _task(name: str, buildings: bool, visible: bool, summary: str, success: float) -> MemoryTask:
    def build(level_name, stimulus_ids, scale_values):
        return ArenaGoal(level_name, stimulus_ids, scale_values, buildings=buildings, visible=visible)

    return MemoryTask(name=name, kind="first_person", stimuli=WALL_LOOKS, scale=ARENA_SCALE, build=build,
                      summary=summary, success=success)


ARENA_TASKS = (
    _task("invisible_goal_empty_arena", False, False,
          "find the hidden goal in an empty arena with four distinct walls, then return to it from new starts",
          100.0),
    _task("invisible_goal_with_buildings", True, False,
          "find the hidden goal among four landmark buildings, then return to it from new starts", 100.0),
    _task("visible_goal_with_buildings", True, True,
          "reach the visible goal among four landmark buildings, again and again from new starts", 100.0),
)
