"""explore_goal_locations (memory suite): find the goal in a maze of rooms, then find it again.

Each episode draws a maze (``procedural.maze``: rooms joined by corridors, no doors) of side ``v``
cells (the split's scale value) and one goal (+``GOAL_REWARD``) on a room cell; the maze and goal
hold for the episode (``new_level_per_trial = False``). Taking the goal restarts the map: the player
respawns in another room and must return to it. Every Level of a split has the shape of the split's
largest maze (smaller mazes are padded with wall).

Stimuli are goal places: the maze's open rows split into eight bands from north to south (band
``8 (row - 1) // (v - 2)``); train episodes put the goal in the northern four (ids 0..3), holdout
episodes in the southern four (ids 4..7). The band is read back from a Level's goal position.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.env import select_tree
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_WALL
from jaxlab.levels.dmlab.memory import steering
from jaxlab.levels.dmlab.memory.splits import Scale, Stimuli
from jaxlab.levels.dmlab.memory.steering import cell_of_xy
from jaxlab.levels.dmlab.memory.tasks import EpisodeDraw, MemoryTask, MemoryTaskGenerator
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy
from jaxlab.levels.dmlab.procedural.looks import episode_theme
from jaxlab.levels.dmlab.procedural.maze import MazeParams, generate_maze

GOAL_REWARD = 10.0
NUM_BANDS = 8
#: maze side (cells, walls included) -> most rooms; rooms are 3..5 cells a side
ROOMS_BY_SIDE = {11: 4, 15: 6, 21: 9, 27: 12}
MAZE_SCALE = Scale("maze side (cells)", train=(11, 21), interpolate=(15,), extrapolate=(27,), small=(11,),
                   large=(21,))
GOAL_BANDS = Stimuli("goal row band, north to south (train: northern half, holdout: southern half)",
                     train=(0, 1, 2, 3), holdout=(4, 5, 6, 7))


def maze_params(side: int) -> MazeParams:
    """The MazeParams of a maze of ``side`` cells (a value of MAZE_SCALE). Dead ends stay: the maze then
    reaches every node, so every band of rows holds open cells for the goal and the maze's side reads
    back from its open rows (``stimuli_shown``)."""
    return MazeParams(height=side, width=side, room_count=ROOMS_BY_SIDE[side], room_min_size=3, room_max_size=5,
                      extra_connections=0, room_doors=False, remove_dead_ends=False)


def band_of_row(row, side) -> jnp.ndarray:
    """int32 (shape of ``row``): the band (0 north .. 7 south) of cell row ``row`` in a maze of
    ``side`` cells (open rows 1..side-2)."""
    return (NUM_BANDS * (jnp.asarray(row, jnp.int32) - 1)) // (jnp.asarray(side, jnp.int32) - 2)


class GoalMaze(MemoryTaskGenerator):
    """One split of explore_goal_locations."""

    new_level_per_trial = False

    def __init__(self, name, stimulus_ids, scale_values):
        super().__init__(name, stimulus_ids, scale_values)
        self.side = max(self.scale_values)

    def _level_of_side(self, key, draw: EpisodeDraw, side: int) -> Level:
        """The episode's Level for a maze of ``side`` cells, padded to ``self.side``."""
        k_maze, k_goal, k_theme = jax.random.split(key, 3)
        maze = generate_maze(k_maze, maze_params(side))
        pad = self.side - side
        cells = jnp.pad(maze.cells, ((0, pad), (0, pad)), constant_values=CELL_WALL)
        room_id = jnp.pad(maze.room_id, ((0, pad), (0, pad)), constant_values=-1)
        rows = jnp.arange(self.side)[:, None]
        in_band = (band_of_row(rows, side) == draw.stimuli[0]) & (rows >= 1) & (rows <= side - 2)
        room_cell = room_id >= 0
        open_ = cells != CELL_WALL
        # a room cell of the band; a corridor cell of it where no room reaches the band
        score = jax.random.uniform(k_goal, cells.shape) + 2.0 * room_cell
        score = jnp.where(open_ & in_band, score, -1.0).reshape(-1)
        flat = jnp.argmax(score)
        goal_rc = jnp.stack([flat // self.side, flat % self.side])
        goal_room = room_id[goal_rc[0], goal_rc[1]]
        spawn_ok = room_cell & ((room_id != goal_room) | (goal_room < 0))
        rr, cc = jnp.meshgrid(jnp.arange(self.side), jnp.arange(self.side), indexing="ij")
        theme, variation = episode_theme(k_theme, cells.shape)
        goal = pickup_set(cell_centre_xy(goal_rc[None], self.side), PICKUP_INDEX["goal"], GOAL_REWARD,
                          is_goal=True)
        return assemble_level(cells, variation, jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool), goal,
                              cell_centre_xy(jnp.stack([rr.reshape(-1), cc.reshape(-1)], -1), self.side),
                              spawn_ok.reshape(-1), self.episode_seconds, theme=theme, switch_theme=theme)

    def trial(self, key, draw: EpisodeDraw, trial) -> Level:
        """The episode's maze and goal (``trial`` unused: one Level per episode). A maze is drawn for
        each of the split's sides and the drawn one kept (shapes are static)."""
        levels = [self._level_of_side(key, draw, side) for side in self.scale_values]
        chosen = levels[0]
        for side, level in zip(self.scale_values[1:], levels[1:]):
            chosen = select_tree(draw.scale == side, level, chosen)
        return chosen

    def stimuli_shown(self, level: Level, draw: EpisodeDraw) -> jnp.ndarray:
        """int32[1] the band of the goal's row, the maze's side read from its open rows."""
        side = jnp.sum(jnp.any(level.cells != CELL_WALL, axis=1)) + 2
        row = cell_of_xy(level, level.pickup_pos[0])[0]
        return band_of_row(row, side)[None]

    def oracle(self, level, world, draw, trial, trial_frames) -> jnp.ndarray:
        """Walk the shortest way to the goal."""
        return steering.walk_path(level, world, level.pickup_pos[0])


def _build(level_name, stimulus_ids, scale_values):
    return GoalMaze(level_name, stimulus_ids, scale_values)


EXPLORE_GOAL_LOCATIONS = MemoryTask(
    name="explore_goal_locations", kind="first_person", stimuli=GOAL_BANDS, scale=MAZE_SCALE, build=_build,
    summary="find the goal in a maze of rooms, then return to it from other rooms", success=80.0)
