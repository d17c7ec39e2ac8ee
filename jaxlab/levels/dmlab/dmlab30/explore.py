"""The eight DMLab-30 explore_* levels: mazes of rooms drawn on device every episode.

Facts followed (DMLab-30's explore factory and labmaze, its maze generator):
an odd-sized maze (11×11 small, 17×17 large) of up to 4 rooms of 3–5 cells
(9 rooms of 3 cells large), corridors between them, one entrance between
each room and each region (corridor or room) next to it, so the maze has
loops, and no dead ends; each room offers 5 spawn cells and 4 object cells
(5 for the large goal level). The layout, the theme and the
objects are drawn per episode; the player's spawn is drawn again at every
map restart.

- goal_locations: one goal (+10) on one object cell; taking it restarts the map.
- object_locations: half of the object cells hold apples (+1); taking them
  all restarts the map with the same apples.
- obstructed_goals: doors on every room entrance; at every restart all
  close, those on the way from the new spawn to the goal open, and
  half of the others open; closed doors never open.
- object_rewards: one 11×11 room; 4 (few) or 8 (many) object categories
  of distinct looks, half good (+2) half bad (−1), drawn per episode; at
  every restart one object per category on fresh cells, a fresh spawn; the
  map restarts when every good object is taken.
"""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_WALL
from jaxlab.levels.dmlab.object_catalogue import SHUT_LOCK
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy, sample_cells
from jaxlab.levels.dmlab.procedural.looks import category_looks, episode_theme
from jaxlab.levels.dmlab.procedural.maze import Maze, MazeParams, generate_maze

SPAWNS_PER_ROOM = 5
GOAL_REWARD, APPLE_REWARD = 10.0, 1.0
GOOD_REWARD, BAD_REWARD = 2.0, -1.0


@dataclasses.dataclass(frozen=True)
class ExploreSpec:
    """One explore_* level: its maze, its episode length (s) and object cells per room."""

    name: str
    maze: MazeParams
    episode_seconds: float
    objects_per_room: int


SMALL = MazeParams(height=11, width=11, room_count=4, room_min_size=3, room_max_size=5, extra_connections=0,
                   room_doors=False)
LARGE = MazeParams(height=17, width=17, room_count=9, room_min_size=3, room_max_size=3, extra_connections=0,
                   room_doors=False)


def _room_cells(key, maze: Maze, per_room: int):
    """Per room, ``SPAWNS_PER_ROOM`` spawn cells then ``per_room`` object cells, all distinct:
    (spawn rc int32[R*5, 2], spawn valid bool[R*5], object rc int32[R*k, 2], object valid bool[R*k])."""
    rooms = maze.room_valid.shape[0]
    take = SPAWNS_PER_ROOM + per_room

    def one(k, r):
        rc, ok = sample_cells(k, (maze.room_id == r) & maze.room_valid[r], take)
        return rc, ok

    rc, ok = jax.vmap(one)(jax.random.split(key, rooms), jnp.arange(rooms))
    s = SPAWNS_PER_ROOM
    return (rc[:, :s].reshape(-1, 2), ok[:, :s].reshape(-1), rc[:, s:].reshape(-1, 2), ok[:, s:].reshape(-1))


def _uniform_pick(key, valid) -> jnp.ndarray:
    """int32[]: a uniformly random index among the True entries of ``valid``."""
    return jax.random.categorical(key, jnp.where(valid, 0.0, -jnp.inf)).astype(jnp.int32)


def _random_half(key, valid) -> jnp.ndarray:
    """bool[n]: floor(half) of the True entries of ``valid``, drawn uniformly."""
    score = jnp.where(valid, jax.random.uniform(key, valid.shape), -1.0)
    rank = jnp.argsort(jnp.argsort(-score))
    return valid & (rank < jnp.sum(valid) // 2)


class ExploreGenerator(LevelGenerator):
    """Base of the explore_* levels: draws the maze, theme, spawn and object cells."""

    def __init__(self, spec: ExploreSpec):
        self.spec = spec
        self.name = spec.name

    def _draw(self, key):
        k_maze, k_cells, k_theme = jax.random.split(key, 3)
        maze = generate_maze(k_maze, self.spec.maze)
        spawn_rc, spawn_ok, object_rc, object_ok = _room_cells(k_cells, maze, self.spec.objects_per_room)
        theme, variation = episode_theme(k_theme, maze.cells.shape)
        return maze, spawn_rc, spawn_ok, object_rc, object_ok, theme, variation

    def _level(self, maze, variation, theme, spawn_rc, spawn_ok, pickups, **mechanics) -> Level:
        rows = maze.cells.shape[0]
        return assemble_level(maze.cells, variation, maze.door_cell, maze.door_valid, pickups,
                              cell_centre_xy(spawn_rc, rows), spawn_ok, self.spec.episode_seconds,
                              theme=theme, **mechanics)


class GoalLocations(ExploreGenerator):
    """explore_goal_locations_*: one goal (+10) per episode; the map restarts when it is taken."""

    def episode(self, key, level_index) -> Level:
        """A new maze with its goal on one object cell (float32 positions in units)."""
        k_draw, k_goal = jax.random.split(key)
        maze, spawn_rc, spawn_ok, object_rc, object_ok, theme, variation = self._draw(k_draw)
        goal = object_rc[_uniform_pick(k_goal, object_ok)]
        pickups = pickup_set(cell_centre_xy(goal[None], maze.cells.shape[0]), PICKUP_INDEX["goal"], GOAL_REWARD,
                             is_goal=True)
        return self._level(maze, variation, theme, spawn_rc, spawn_ok, pickups)


class ObjectLocations(ExploreGenerator):
    """explore_object_locations_*: apples (+1) on half the object cells, fixed for the episode."""

    def episode(self, key, level_index) -> Level:
        """A new maze with its apples."""
        k_draw, k_half = jax.random.split(key)
        maze, spawn_rc, spawn_ok, object_rc, object_ok, theme, variation = self._draw(k_draw)
        apples = pickup_set(cell_centre_xy(object_rc, maze.cells.shape[0]), PICKUP_INDEX["apple_reward"],
                            APPLE_REWARD, valid=_random_half(k_half, object_ok))
        return self._level(maze, variation, theme, spawn_rc, spawn_ok, apples)


def _node_distance(passable, source, target) -> jnp.ndarray:
    """int32[NR, NC] steps from node ``source`` (int32[2] node (i, j)) over the maze's node grid,
    searched until node ``target`` (int32[2]) is reached: nodes farther than it stay -1.

    passable: bool[H, W] maze cells (odd H, W); node (i, j) is cell (2i+1, 2j+1), and two
    neighbouring nodes are joined when the cell between them is passable. -1 where unreachable.
    A breadth-first search on the node grid: a quarter of the cells and half the steps of one
    on the cell grid, and it stops at the target.
    """
    right = passable[1::2, 2::2]          # [NR, NC]: joins (i, j) and (i, j + 1); the last column is border
    down = passable[2::2, 1::2]           # [NR, NC]: joins (i, j) and (i + 1, j); the last row is border
    reach = jnp.zeros(right.shape, bool).at[source[0], source[1]].set(True)
    no_col = jnp.zeros_like(reach[:, :1])
    no_row = jnp.zeros_like(reach[:1])

    def grow(reach):
        from_left = jnp.concatenate([no_col, (reach & right)[:, :-1]], 1)
        from_right = jnp.concatenate([(reach[:, 1:] & right[:, :-1]), no_col], 1)
        from_up = jnp.concatenate([no_row, (reach & down)[:-1]], 0)
        from_down = jnp.concatenate([(reach[1:] & down[:-1]), no_row], 0)
        return reach | from_left | from_right | from_up | from_down

    def body(carry):
        reach, dist, step, _ = carry
        new = grow(reach)
        return new, jnp.where(new & ~reach, step + 1, dist), step + 1, jnp.any(new != reach) & ~new[target[0], target[1]]

    init = (reach, jnp.where(reach, 0, -1).astype(jnp.int32), jnp.int32(0), ~reach[target[0], target[1]])
    return jax.lax.while_loop(lambda c: c[3], body, init)[1]


def _path_doors(level: Level, goal_rc, spawn_rc) -> jnp.ndarray:
    """bool[D]: the doors on the shortest ways from ``spawn_rc`` to ``goal_rc`` (int32[2] room cells;
    every door passable): those where the distances of the door's two nodes from the two ends add
    up to the shortest path's length (both searches stop at that length: no node of such a path
    lies farther from either end). The mazes have loops, so there may be several shortest ways;
    the doors of all of them open. (DeepMind Lab opens the doors of one random walk from the
    spawn to the goal; either way the goal stays reachable.)"""
    passable = level.cells != CELL_WALL
    node = lambda rc: (rc - 1) // 2     # a room cell's node (a node of the same room)
    from_goal = _node_distance(passable, node(goal_rc), node(spawn_rc))
    from_spawn = _node_distance(passable, node(spawn_rc), node(goal_rc))
    r, c = level.door_cell[:, 0], level.door_cell[:, 1]
    a = jnp.stack([(r - 1) // 2, (c - 1) // 2], -1)          # the nodes either side of each door
    b = jnp.stack([r // 2, c // 2], -1)
    at = lambda dist, n: jnp.where(dist[n[:, 0], n[:, 1]] < 0, 10 ** 6, dist[n[:, 0], n[:, 1]])
    length = at(from_goal, node(spawn_rc)[None])[0]
    through = jnp.minimum(at(from_goal, a) + at(from_spawn, b), at(from_goal, b) + at(from_spawn, a)) + 1
    return level.door_valid & (through == length) & (length >= 0)


class ObstructedGoals(ExploreGenerator):
    """explore_obstructed_goals_*: the goal level with doors shut at random per restart
    (never the ones on the shortest ways from the spawn to the goal).

    Spawn slot 0 holds this map's spawn (the only one allowed); slots 1.. keep
    every candidate spawn cell (NaN where a room had fewer cells) for the
    next restart to draw from.
    """

    redraws_on_restart = True

    def episode(self, key, level_index) -> Level:
        """A new maze and goal, then the first map's spawn and doors."""
        k_draw, k_goal, k_doors = jax.random.split(key, 3)
        maze, spawn_rc, spawn_ok, object_rc, object_ok, theme, variation = self._draw(k_draw)
        rows = maze.cells.shape[0]
        goal = object_rc[_uniform_pick(k_goal, object_ok)]
        pickups = pickup_set(cell_centre_xy(goal[None], rows), PICKUP_INDEX["goal"], GOAL_REWARD, is_goal=True)
        candidates = jnp.where(spawn_ok[:, None], cell_centre_xy(spawn_rc, rows), jnp.nan)
        slots = jnp.concatenate([candidates[:1], candidates])
        level = assemble_level(maze.cells, variation, maze.door_cell, maze.door_valid, pickups, slots,
                               jnp.zeros(slots.shape[0], bool), self.spec.episode_seconds, theme=theme)
        return self.restart(level, k_doors, level_index)

    def restart(self, level: Level, key, level_index) -> Level:
        """The same maze and goal with a fresh spawn (slot 0) and fresh shut doors."""
        k_spawn, k_half = jax.random.split(key)
        candidates = level.spawn_pos[1:]
        ok = ~jnp.isnan(candidates[:, 0])
        spawn = candidates[_uniform_pick(k_spawn, ok)]
        on_path = _path_doors(level, _cell_of(level, level.pickup_pos[0]), _cell_of(level, spawn))
        opened = on_path | _random_half(k_half, level.door_valid & ~on_path)
        allowed = jnp.zeros(level.spawn_allowed.shape, bool).at[:, 0].set(True)
        return level.replace(door_lock=jnp.where(opened, 0, SHUT_LOCK).astype(jnp.int32),
                             spawn_pos=level.spawn_pos.at[0].set(spawn), spawn_allowed=allowed)


def _cell_of(level: Level, xy) -> jnp.ndarray:
    """int32[2] (row, col) of world point ``xy`` float32[2] units."""
    return jnp.stack([level.rows - 1 - jnp.floor(xy[1] / 100.0), jnp.floor(xy[0] / 100.0)]).astype(jnp.int32)


@dataclasses.dataclass(frozen=True)
class ObjectRewardsSpec:
    """explore_object_rewards_*: categories (half good), candidate object cells, episode length (s)."""

    name: str
    categories: int
    object_cells: int
    episode_seconds: float


#: the object-rewards room: 11×11 open cells inside a 13×13 map
ROOM_SIZE = 11


class ObjectRewards(LevelGenerator):
    """explore_object_rewards_*: one room, one object per category at a time.

    Pickup slots are the episode's candidate object cells (fixed for the
    episode); at each map restart half of them are filled, one per category,
    in a random order, and the spawn is drawn again. Categories (looks and
    rewards: the first half good +2, the rest bad −1) are fixed per episode.
    """

    redraws_on_restart = True

    def __init__(self, spec: ObjectRewardsSpec):
        self.spec = spec
        self.name = spec.name

    def episode(self, key, level_index) -> Level:
        """A new room theme, candidate cells and categories, then the first map's objects."""
        k_cells, k_theme, k_looks, k_restart = jax.random.split(key, 4)
        size = ROOM_SIZE + 2
        cells = jnp.full((size, size), CELL_WALL, jnp.int8).at[1:-1, 1:-1].set(0)
        room = cells == 0
        take = SPAWNS_PER_ROOM + self.spec.object_cells
        rc, _ = sample_cells(k_cells, room, take)
        theme, variation = episode_theme(k_theme, cells.shape)
        n = self.spec.categories
        looks = category_looks(k_looks, n)
        rewards = jnp.where(jnp.arange(n) < n // 2, GOOD_REWARD, BAD_REWARD)
        slots = self.spec.object_cells
        pickups = pickup_set(cell_centre_xy(rc[SPAWNS_PER_ROOM:], size),
                             jnp.zeros(slots, jnp.int32).at[:n].set(looks),
                             jnp.zeros(slots, jnp.float32).at[:n].set(rewards),
                             valid=jnp.arange(slots) < n)
        level = assemble_level(cells, variation, jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool), pickups,
                               cell_centre_xy(rc[:SPAWNS_PER_ROOM], size), jnp.ones(SPAWNS_PER_ROOM, bool),
                               self.spec.episode_seconds, theme=theme)
        return self.restart(level, k_restart, level_index)

    def restart(self, level: Level, key, level_index) -> Level:
        """The categories dealt to a fresh half of the candidate cells, in a random order."""
        order = jnp.argsort(~level.pickup_valid, stable=True)        # the categories, slot order
        kinds, rewards = level.pickup_kind[order], level.pickup_reward[order]
        slots = jax.random.permutation(key, level.pickup_valid.shape[0])   # new slot of category i
        n = self.spec.categories
        dealt = jnp.arange(slots.shape[0]) < n
        new_slot_valid = jnp.zeros_like(level.pickup_valid).at[slots].set(dealt)
        return level.replace(pickup_valid=new_slot_valid,
                             pickup_kind=jnp.zeros_like(kinds).at[slots].set(kinds),
                             pickup_reward=jnp.zeros_like(rewards).at[slots].set(rewards))


GENERATORS = {
    "explore_goal_locations_small": GoalLocations(ExploreSpec("explore_goal_locations_small", SMALL, 90.0, 4)),
    "explore_goal_locations_large": GoalLocations(ExploreSpec("explore_goal_locations_large", LARGE, 120.0, 5)),
    "explore_object_locations_small": ObjectLocations(ExploreSpec("explore_object_locations_small", SMALL, 90.0, 4)),
    "explore_object_locations_large": ObjectLocations(ExploreSpec("explore_object_locations_large", LARGE, 120.0, 4)),
    "explore_obstructed_goals_small": ObstructedGoals(ExploreSpec(
        "explore_obstructed_goals_small", dataclasses.replace(SMALL, room_doors=True), 90.0, 4)),
    "explore_obstructed_goals_large": ObstructedGoals(ExploreSpec(
        "explore_obstructed_goals_large", dataclasses.replace(LARGE, room_doors=True), 120.0, 5)),
    "explore_object_rewards_few": ObjectRewards(ObjectRewardsSpec("explore_object_rewards_few", 4, 8, 90.0)),
    "explore_object_rewards_many": ObjectRewards(ObjectRewardsSpec("explore_object_rewards_many", 8, 16, 120.0)),
}
