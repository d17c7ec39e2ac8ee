"""The four DMLab-30 lasertag_* levels: a procedural maze, gadgets and shields, and bots to play.

Facts followed (DMLab's laser-tag procedural factory and the four level files):
a maze of labmaze's kind, 11×11 with up to 3 rooms of 3–5 cells (small) or
21×21 with up to 4 rooms of 5–7 cells (large), 3 spawn points per room; 1
gadget pickup (drawn from the Orb, Beam and Disc gadgets) and 2 items (the
large shield boost or armour) on other empty cells (large: 2 and 4); 1 or 3
bots of skill 4 in colours drawn per episode; 240 s episodes. The rules of
play are ``gadgets``'s; the players, shots and bots are the first-person
kernel's (``kernels.first_person.arena``).

A tagged player comes back at a free room spawn point (at a free floor cell
when every one is taken: ``kernels.first_person.arena.choose_spawn``).
"""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab import gadgets as G
from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy, sample_cells
from jaxlab.levels.dmlab.procedural.looks import episode_theme
from jaxlab.levels.dmlab.procedural.maze import MazeParams, generate_maze

SPAWNS_PER_ROOM = 3
EPISODE_SECONDS = 240.0
BOT_SKILL = 4.0


@dataclasses.dataclass(frozen=True)
class LaserTagSpec:
    """One lasertag_* level: its maze, gadget and item pickups, and bots."""

    name: str
    maze: MazeParams
    weapons: int
    items: int
    bots: int
    skill: float = BOT_SKILL
    episode_seconds: float = EPISODE_SECONDS


SMALL = MazeParams(height=11, width=11, room_count=3, room_min_size=3, room_max_size=5, extra_connections=0,
                   room_doors=False)
LARGE = MazeParams(height=21, width=21, room_count=4, room_min_size=5, room_max_size=7, extra_connections=0,
                   room_doors=False)
_WEAPON_KINDS = jnp.asarray([PICKUP_INDEX[n] for n in G.WEAPON_PICKUPS], jnp.int32)
_ITEM_KINDS = jnp.asarray([PICKUP_INDEX[n] for n in G.ITEM_PICKUPS], jnp.int32)


class LaserTag(LevelGenerator):
    """A lasertag_* level: a new maze, spawn points, pickups and bot colours every episode."""

    def __init__(self, spec: LaserTagSpec):
        self.spec = spec
        self.name = spec.name

    def episode(self, key, level_index) -> Level:
        """The Level of a new episode (positions float32 in units): the maze, ``SPAWNS_PER_ROOM`` spawn
        points per room, the gadget and item pickups on other empty cells, and the bots (``bot_skill``,
        ``bot_valid``; their colours are the kernel's)."""
        spec = self.spec
        k_maze, k_spawn, k_cells, k_weapon, k_item, k_theme = jax.random.split(key, 6)
        maze = generate_maze(k_maze, spec.maze)
        rows = maze.cells.shape[0]
        rooms = maze.room_valid.shape[0]

        def room_spawns(k, r):
            return sample_cells(k, (maze.room_id == r) & maze.room_valid[r], SPAWNS_PER_ROOM)

        spawn_rc, spawn_ok = jax.vmap(room_spawns)(jax.random.split(k_spawn, rooms), jnp.arange(rooms))
        spawn_rc, spawn_ok = spawn_rc.reshape(-1, 2), spawn_ok.reshape(-1)
        floor = maze.cells == CELL_FLOOR
        taken = jnp.zeros(floor.shape, bool).at[spawn_rc[:, 0], spawn_rc[:, 1]].max(spawn_ok)
        n = spec.weapons + spec.items
        pickup_rc, pickup_ok = sample_cells(k_cells, floor & ~taken, n)
        kind = jnp.concatenate([
            _WEAPON_KINDS[jax.random.randint(k_weapon, (spec.weapons,), 0, _WEAPON_KINDS.shape[0])],
            _ITEM_KINDS[jax.random.randint(k_item, (spec.items,), 0, _ITEM_KINDS.shape[0])]])
        pickups = pickup_set(cell_centre_xy(pickup_rc, rows), kind, 0.0, pickup_ok, takeable=False)
        theme, variation = episode_theme(k_theme, maze.cells.shape)
        level = assemble_level(maze.cells, variation, maze.door_cell, maze.door_valid, pickups,
                               cell_centre_xy(spawn_rc, rows), spawn_ok, spec.episode_seconds, theme=theme)
        return level.replace(bot_skill=jnp.full((spec.bots,), spec.skill, jnp.float32),
                             bot_valid=jnp.ones((spec.bots,), bool))


SPECS = (
    LaserTagSpec("lasertag_one_opponent_small", SMALL, weapons=1, items=2, bots=1),
    LaserTagSpec("lasertag_three_opponents_small", SMALL, weapons=1, items=2, bots=3),
    LaserTagSpec("lasertag_one_opponent_large", LARGE, weapons=2, items=4, bots=1),
    LaserTagSpec("lasertag_three_opponents_large", LARGE, weapons=2, items=4, bots=3),
)
GENERATORS = {spec.name: LaserTag(spec) for spec in SPECS}
