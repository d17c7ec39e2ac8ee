"""transitive_inference: learn a hidden order of objects from adjacent pairs, then choose between
pairs never seen together.

An episode draws ``K`` objects (``K``: the split's scale value) in a random order, the hidden ranking
(``draw.stimuli[0]`` lowest, ``draw.stimuli[K - 1]`` highest). Every trial is a small room with two
objects side by side in front of the player; touching one ends the trial (a new room), and touching
the higher-ranked one pays ``CHOICE_REWARD``. The first ``TRAINING_TRIALS_PER_PAIR * (K - 1)``
trials show adjacent pairs (ranks i and i + 1), from which the order can be learned; every trial
after them shows a non-adjacent pair (ranks i and j >= i + 2), answerable only by transitive
inference. Sides are drawn per trial. The walls turn from the study look to the test look when the
test phase starts.

Stimuli are object looks: six shapes (not the box) × ten colours, id ``10 shape + colour``; train
ids have ``shape + colour`` even, holdout ids odd. They are read back from a Level's pickup looks.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.memory.splits import Scale, Stimuli
from jaxlab.levels.dmlab.memory.tasks import EpisodeDraw, MemoryTask, MemoryTaskGenerator
from jaxlab.levels.dmlab.object_catalogue import (FIRST_OBJECT_KIND, NUM_OBJECT_COLOURS, NUM_OBJECTS,
                                                  OBJECT_SHAPES, object_kind)
from jaxlab.levels.dmlab.dmlab30 import looks
from jaxlab.levels.dmlab.dmlab30.room_maps import cells_from_rows, wall_variation
from jaxlab.levels.dmlab.memory import steering
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy

CHOICE_REWARD = 1.0
TRAINING_TRIALS_PER_PAIR = 4
SHAPES = ("ball", "diamond", "triangle", "pillar", "ring", "cross")
NUM_LOOKS = len(SHAPES) * NUM_OBJECT_COLOURS
ROOM = cells_from_rows([
    "*******",
    "*     *",
    "*     *",
    "*     *",
    "*     *",
    "*******",
])
OBJECT_CELLS = np.array([[2, 2], [2, 4]], np.int32)
SPAWN_CELL = np.array([[4, 3]], np.int32)
SPAWN_YAW = 90.0                      # facing north, towards the objects
THEME = looks.theme("lab")
STUDY_WALL, TEST_WALL = looks.variation_code("B"), looks.variation_code("M")
OBJECT_ORDER_SCALE = Scale("objects in the order", train=(5, 7), interpolate=(6,), extrapolate=(9,), small=(5,),
                           large=(7,))
OBJECT_LOOKS = Stimuli("object looks: 6 shapes × 10 colours, id 10 shape + colour (train: shape + colour even)",
                       train=tuple(i for i in range(NUM_LOOKS) if (i // 10 + i % 10) % 2 == 0),
                       holdout=tuple(i for i in range(NUM_LOOKS) if (i // 10 + i % 10) % 2 == 1))


def look_kind(look) -> jnp.ndarray:
    """int32 (shape of ``look``): the PICKUP_TYPES kind of object look id ``look``."""
    look = jnp.asarray(look, jnp.int32)
    shape = jnp.asarray([OBJECT_SHAPES.index(s) for s in SHAPES], jnp.int32)[look // NUM_OBJECT_COLOURS]
    return object_kind(shape, look % NUM_OBJECT_COLOURS, 0).astype(jnp.int32)


def _look_of_kind_table() -> np.ndarray:
    """int32[NUM_OBJECTS] the look id of every catalogue object (-1: not a look of this task)."""
    table = np.full(NUM_OBJECTS, -1, np.int32)
    for i in range(NUM_LOOKS):
        table[int(look_kind(i)) - FIRST_OBJECT_KIND] = i
    return table


LOOK_OF_KIND = _look_of_kind_table()


def trial_pair(key, num_objects, trial) -> jnp.ndarray:
    """int32[2] (lower, higher) ranks shown in trial ``trial`` of an order of ``num_objects`` (both
    int32[], may be traced): an adjacent pair during training, a non-adjacent one after."""
    n = max(OBJECT_ORDER_SCALE.train + OBJECT_ORDER_SCALE.interpolate + OBJECT_ORDER_SCALE.extrapolate)
    i, j = jnp.meshgrid(jnp.arange(n), jnp.arange(n), indexing="ij")
    training = trial < TRAINING_TRIALS_PER_PAIR * (num_objects - 1)
    gap_ok = jnp.where(training, j - i == 1, j - i >= 2) & (j < num_objects)
    flat = jax.random.categorical(key, jnp.where(gap_ok, 0.0, -jnp.inf).reshape(-1))
    return jnp.stack([flat // n, flat % n]).astype(jnp.int32)


class TransitiveInference(MemoryTaskGenerator):
    """One split of transitive_inference (one Level per trial)."""

    def __init__(self, name, stimulus_ids, scale_values):
        super().__init__(name, stimulus_ids, scale_values)
        self.num_stimuli = max(self.scale_values)

    def trial(self, key, draw: EpisodeDraw, trial) -> Level:
        """The room of trial ``trial``: the pair's two objects, sides drawn."""
        k_pair, k_side = jax.random.split(key)
        ranks = trial_pair(k_pair, draw.scale, trial)
        ranks = jnp.where(jax.random.bernoulli(k_side), ranks[::-1], ranks)      # left, right
        higher = jnp.max(ranks)
        rows = ROOM.shape[0]
        objects = pickup_set(cell_centre_xy(jnp.asarray(OBJECT_CELLS), rows), look_kind(draw.stimuli[ranks]),
                             jnp.where(ranks == higher, CHOICE_REWARD, 0.0), is_goal=True)
        testing = trial >= TRAINING_TRIALS_PER_PAIR * (draw.scale - 1)
        variation = wall_variation(ROOM, jnp.where(testing, TEST_WALL, STUDY_WALL))
        return assemble_level(ROOM, variation, jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool), objects,
                              cell_centre_xy(jnp.asarray(SPAWN_CELL), rows), jnp.ones((1,), bool),
                              self.episode_seconds, spawn_yaw=jnp.full((1,), SPAWN_YAW), theme=THEME,
                              switch_theme=THEME)

    def stimuli_shown(self, level: Level, draw: EpisodeDraw) -> jnp.ndarray:
        """int32[2] the look ids of the trial's two objects."""
        index = jnp.clip(level.pickup_kind - FIRST_OBJECT_KIND, 0, NUM_OBJECTS - 1)
        known = (level.pickup_kind >= FIRST_OBJECT_KIND) & (level.pickup_kind < FIRST_OBJECT_KIND + NUM_OBJECTS)
        return jnp.where(known, jnp.asarray(LOOK_OF_KIND)[index], -1)

    def oracle(self, level, world, draw, trial, trial_frames) -> jnp.ndarray:
        """Walk to the higher-ranked object (privileged: the rewards are read)."""
        return steering.walk_path(level, world, level.pickup_pos[jnp.argmax(level.pickup_reward)])


def _build(level_name, stimulus_ids, scale_values):
    return TransitiveInference(level_name, stimulus_ids, scale_values)


TASKS = (MemoryTask(
    name="transitive_inference", kind="first_person", stimuli=OBJECT_LOOKS, scale=OBJECT_ORDER_SCALE, build=_build,
    summary="learn which of two adjacent objects pays, then choose between objects never paired", success=30.0),)
