"""The four DMLab-30 language levels: an instruction (``INSTR``) names the object to take.

- ``language_select_described_object``: two objects of five shapes in a small room; the
  instruction is the goal's shape; the goal pays +10, the other -10 (60 s).
- ``language_select_located_object``: "Pick the <colour> object in the <floor colour> room", in
  two, four or six rooms with floors of distinct colours; the goal +10, each distractor the
  balanced penalty (120 s).
- ``language_execute_random_task``: one of DMLab's 14 task tables (pick by colour and/or shape,
  every object of a shape or colour, an object near another), balanced rewards (120 s).
- ``language_answer_quantitative_question``: a yes/no question about the objects in the black
  room; the white ball answers yes, the black ball no: +10 right, -10 wrong (60 s).

Every taking that ends the task restarts the map with a newly drawn task, map and instruction
(DMLab's ``finishMap`` and ``nextMap``); the episode goes on. Tasks are drawn on the device
(``language_tasks`` for the tables, ``language_scene`` for drawing and placing objects).

As in DMLab, the located tasks' random distractors never share the goal's room: the goal and the
distractor beside it, placed first, fill its two slots.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
from flax import struct

from jaxlab.levels.dmlab.dmlab30 import language_maps as lm
from jaxlab.levels.dmlab.dmlab30.language_scene import Scene, draw_scene, place_in_rooms, place_randomly, scene_level
from jaxlab.levels.dmlab.dmlab30.language_tasks import (ALL_COLOURS, ALL_SHAPES, DESCRIBED, DESCRIBED_SHAPES,
                                                        EXECUTE_TASKS, GOAL_REWARD, LOCATED_TASKS, QUANTITATIVE_FLOORS,
                                                        Question, QUESTIONS, SIX_COLOURS, Task)
from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.instructions import colour_token, compose, shape_token
from jaxlab.levels.dmlab.language_objects import LANGUAGE_PATTERNS
from jaxlab.levels.dmlab.level import Level


@struct.dataclass
class Drawn:
    """One task drawn for an episode (M objects): map_index int32[]; scene: ``Scene``; slot int32[M];
    finishes bool[M] (taking it ends the task); counted bool[M] (the goal objects a counting task
    counts); bonus float32[] (paid with the last counted one); instr int32[INSTRUCTION_LENGTH]."""

    map_index: jnp.ndarray
    scene: Scene
    slot: jnp.ndarray
    finishes: jnp.ndarray
    counted: jnp.ndarray
    bonus: jnp.ndarray
    instr: jnp.ndarray


def _balanced_penalty(total, distractors) -> jnp.ndarray:
    """float32[]: DMLab's balanced distractor reward, -floor(total / distractors + 1/2)."""
    return -jnp.floor(total / jnp.maximum(distractors, 1) + 0.5)


def _pad(tree, size: int):
    """Every [M] array of ``tree`` padded to [size] with zeros / False (absent objects)."""
    return jax.tree_util.tree_map(lambda a: jnp.pad(a, (0, size - a.shape[0])), tree)


class LanguageLevel(LevelGenerator):
    """A language level: per episode (and per map restart) one task drawn from ``tasks`` ((weight,
    Task) pairs; for the quantitative level, ``Question``s with equal weights).

    Args:
      name: the DMLab-30 name; tasks: the table; maps: the ``LanguageMap``s the tasks' map indices
      name; seconds: the episode length; spawn_range: degrees of DMLab's randomAngleRange; shapes,
      colours: the allowed shape and colour indices; patterns: the allowed patterns (None: solid);
      floors: "shuffled" (distinct colours of ``SIX_COLOURS`` per room), a tuple of colour indices
      per room, or None (the theme's floor); controller: "simple", "balanced" or "answer".
    """

    redraws_on_restart = True
    language_objects = True

    def __init__(self, name: str, tasks: Sequence, maps: Sequence[lm.LanguageMap], seconds: float,
                 spawn_range: float, shapes: Sequence[int], colours: Sequence[int],
                 patterns: Optional[Sequence[int]] = None, floors=None, controller: str = "balanced"):
        self.name = name
        self.tasks = tuple(tasks)
        self.maps = lm.map_set(maps)
        self.seconds, self.spawn_range = seconds, spawn_range
        self.shapes, self.colours, self.patterns = tuple(shapes), tuple(colours), patterns
        self.floors, self.controller = floors, controller
        self.capacity = max(sum(g.capacity for g in self._task(t).groups) for t in self.tasks)

    @staticmethod
    def _task(entry) -> Task:
        return entry.task if isinstance(entry, Question) else entry[1]

    def _weights(self) -> jnp.ndarray:
        return jnp.asarray([1 if isinstance(entry, Question) else entry[0] for entry in self.tasks], jnp.float32)

    def room_colours(self, key: jax.Array) -> jnp.ndarray:
        """int32[Q]: each room's floor colour (index into ``LANGUAGE_COLOURS``; -1: the theme's floor)."""
        rooms = self.maps.room_valid.shape[1]
        if self.floors == "shuffled":
            return jnp.asarray(SIX_COLOURS, jnp.int32)[jax.random.permutation(key, len(SIX_COLOURS))[:rooms]]
        if self.floors is None:
            return jnp.full((rooms,), -1, jnp.int32)
        return jnp.asarray(self.floors, jnp.int32)

    def draw_task(self, entry, key: jax.Array, room_colour) -> Drawn:
        """One task of the table drawn from ``key`` with rooms of colours ``room_colour`` (int32[Q])."""
        task = self._task(entry)
        k_map, k_counts, k_scene, k_place, k_text = jax.random.split(key, 5)
        map_index = jnp.asarray(task.maps, jnp.int32)[jax.random.randint(k_map, (), 0, len(task.maps))]
        maps = self.maps.pick(map_index)
        counts = jnp.asarray(task.counts(k_counts) if callable(task.counts) else task.counts, jnp.int32)
        scene = draw_scene(k_scene, task.groups, counts, self.shapes, self.colours, maps.room_valid, self.patterns)
        slot = (place_in_rooms if task.in_rooms else place_randomly)(k_place, scene, maps)
        first = [sum(g.capacity for g in task.groups[:i]) for i in range(len(task.groups))]
        goal, other = first[task.goal_group], first[min(task.other, len(first) - 1)]
        goal_room = maps.slot_room[jnp.maximum(slot[goal], 0)]
        words = {("goal", "shape"): shape_token(scene.shape[goal]),
                 ("goal", "colour"): colour_token(scene.colour[goal]),
                 ("other", "shape"): shape_token(scene.shape[other]),
                 ("other", "colour"): colour_token(scene.colour[other]),
                 ("goal", "floor"): colour_token(room_colour[jnp.maximum(goal_room, 0)])}
        texts = jnp.stack([compose([p if isinstance(p, str) else words[p] for p in text])
                           for text in task.instructions])
        instr = texts[jax.random.randint(k_text, (), 0, len(task.instructions))]
        reward, finishes, counted, bonus = self._rewards(entry, scene, counts, slot >= 0)
        padded = _pad(dict(scene=scene.replace(reward=reward), slot=slot + 1, finishes=finishes, counted=counted),
                      self.capacity)
        return Drawn(map_index=map_index, scene=padded["scene"], slot=padded["slot"] - 1, finishes=padded["finishes"],
                     counted=padded["counted"], bonus=bonus, instr=instr)

    def _rewards(self, entry, scene: Scene, counts, placed) -> Tuple[jnp.ndarray, ...]:
        """(reward float32[M], finishes bool[M], counted bool[M], bonus float32[]) by the level's controller."""
        task = self._task(entry)
        is_goal = scene.group == task.goal_group
        real = scene.real & placed
        no = jnp.zeros(is_goal.shape, bool)
        if self.controller == "simple":
            return scene.reward, real, no, jnp.float32(0.0)
        if self.controller == "answer":
            truth = entry.truth(counts)
            says_yes = jnp.where(scene.group == 0, 1.0, jnp.where(scene.group == 1, -1.0, 0.0))
            right = jnp.where(truth, says_yes, -says_yes)
            return jnp.where(scene.takeable, GOAL_REWARD * right, 0.0), real & scene.takeable, no, jnp.float32(0.0)
        distractors = jnp.sum(real & ~is_goal)
        if task.counting:
            goal_total = jnp.sum(real & is_goal) * 1.0 + GOAL_REWARD
            reward = jnp.where(is_goal, scene.reward, _balanced_penalty(goal_total, distractors))
            return reward, real & ~is_goal, real & is_goal, jnp.float32(GOAL_REWARD)
        reward = jnp.where(is_goal, GOAL_REWARD, _balanced_penalty(GOAL_REWARD, distractors))
        return reward, real, no, jnp.float32(0.0)

    def draw(self, key: jax.Array, room_colour) -> Drawn:
        """One episode's (or map restart's) task, with rooms of colours ``room_colour`` (int32[Q]): the
        table's entry drawn by weight (every entry is drawn under ``vmap``, the chosen one kept)."""
        k_pick, k_task = jax.random.split(key)
        index = jax.random.categorical(k_pick, jnp.log(self._weights()))
        branches = [lambda k, e=e: self.draw_task(e, k, room_colour) for e in self.tasks]
        return jax.lax.switch(index, branches, k_task) if len(branches) > 1 else branches[0](k_task)

    def level_of(self, drawn: Drawn, room_colour=None) -> Level:
        """The Level of a drawn task."""
        return scene_level(self.maps.pick(drawn.map_index), drawn.scene, drawn.slot, drawn.finishes, drawn.instr,
                           self.seconds, self.spawn_range,
                           room_colour=room_colour, counted=drawn.counted, counted_bonus=drawn.bonus)

    def episode(self, key: jax.Array, level_index) -> Level:
        """A new task, drawn from ``key`` (``level_index`` unused)."""
        return self._level(key)

    def restart(self, level: Level, key: jax.Array, level_index) -> Level:
        """After a task ends: a new one, as at the episode's start."""
        return self._level(key)

    def _level(self, key: jax.Array) -> Level:
        k_floor, k_task = jax.random.split(key)
        colours = self.room_colours(k_floor)
        return self.level_of(self.draw(k_task, colours), None if self.floors is None else colours)


DESCRIBED_OBJECT = LanguageLevel("language_select_described_object", ((1, DESCRIBED),), [lm.FOUR_POSITIONS], 60.0, 20.0,
                                 DESCRIBED_SHAPES, ALL_COLOURS, patterns=range(len(LANGUAGE_PATTERNS)),
                                 controller="simple")
LOCATED_OBJECT = LanguageLevel("language_select_located_object", LOCATED_TASKS,
                               [lm.TWO_AREAS, lm.TWO_ROOMS, lm.FOUR_ROOMS, lm.SIX_ROOMS], 120.0, 360.0, ALL_SHAPES,
                               SIX_COLOURS, floors="shuffled")
EXECUTE_RANDOM_TASK = LanguageLevel("language_execute_random_task", EXECUTE_TASKS,
                                    [lm.TWO_AREAS, lm.TWO_ROOMS, lm.FOUR_ROOMS, lm.SIX_ROOMS], 120.0, 360.0,
                                    ALL_SHAPES, SIX_COLOURS)
QUANTITATIVE_QUESTION = LanguageLevel("language_answer_quantitative_question", QUESTIONS, [lm.QUANTIFICATION], 60.0,
                                      20.0, ALL_SHAPES, SIX_COLOURS, floors=QUANTITATIVE_FLOORS, controller="answer")

GENERATORS = {g.name: g for g in (DESCRIBED_OBJECT, LOCATED_OBJECT, EXECUTE_RANDOM_TASK, QUANTITATIVE_QUESTION)}
