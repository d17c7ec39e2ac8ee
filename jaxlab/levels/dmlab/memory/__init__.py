"""The memory-task suite (dm_memorytasks): 13 tasks, each under every split's level name.

``TASK_NAMES`` lists the base tasks by group; ``LEVELS`` maps every level name
(``<task>_<suffix>``, ``splits.suffixes``) to its env constructor; a level is also reachable as
``memory/<name>`` and, for the DMLab-run tasks, as ``contributed/psychlab/memory_suite_01/<name>``.
Task modules are imported on first use.
"""
from __future__ import annotations

import functools
import importlib
from typing import Dict, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.levels.dmlab.memory.splits import level_names, split_of
# imported before ``tasks()`` is defined: a first import of the submodule later would set the
# package's ``tasks`` attribute to the module, shadowing the function
from jaxlab.levels.dmlab.memory import tasks as _task_types  # noqa: F401

PSYCHLAB_TASKS = ("arbitrary_visuomotor_mapping", "change_detection", "continuous_recognition", "what_then_where")
SPOT_DIFF_TASKS = ("spot_diff", "spot_diff_motion", "spot_diff_multi", "spot_diff_passive")
GOAL_NAVIGATION_TASKS = ("explore_goal_locations", "invisible_goal_empty_arena", "invisible_goal_with_buildings",
                         "visible_goal_with_buildings")
TRANSITIVE_INFERENCE_TASKS = ("transitive_inference",)
TASK_NAMES: Tuple[str, ...] = PSYCHLAB_TASKS + SPOT_DIFF_TASKS + GOAL_NAVIGATION_TASKS + TRANSITIVE_INFERENCE_TASKS
#: module (under this package) whose ``TASKS`` define each group of tasks
TASK_MODULES = {"psychlab_tasks": PSYCHLAB_TASKS, "spot_diff": SPOT_DIFF_TASKS,
                "goal_navigation": GOAL_NAVIGATION_TASKS, "transitive_inference": TRANSITIVE_INFERENCE_TASKS}
PATH_PREFIXES = ("memory/", "contributed/psychlab/memory_suite_01/")
#: settings of a memory-task level (dm_memorytasks' names where it has them)
SETTINGS = ("width", "height", "observations", "action_repeat", "episode_length_seconds")


@functools.lru_cache(maxsize=None)
def _module_tasks(module: str) -> Dict[str, object]:
    """base name -> ``MemoryTask`` of the tasks defined by ``module`` (imported on first use)."""
    return {task.name: task for task in importlib.import_module(f"{__name__}.{module}").TASKS}


def task(name: str):
    """The ``MemoryTask`` of base name ``name`` (imports only its module)."""
    for module, names in TASK_MODULES.items():
        if name in names:
            return _module_tasks(module)[name]
    raise unknown_name_error("memory task", name, TASK_NAMES)


def tasks() -> Dict[str, object]:
    """base name -> ``MemoryTask`` of every task, in ``TASK_NAMES`` order (imports every task module)."""
    return {name: task(name) for name in TASK_NAMES}


def all_level_names() -> Tuple[str, ...]:
    """Every level name of the suite (13 tasks × their suffixes), grouped by task."""
    return tuple(name for task in TASK_NAMES for name in level_names(task))


def build(level_name: str):
    """What the env of ``level_name`` runs: the task's ``build`` for the split's stimuli and scale values."""
    from jaxlab.levels.dmlab.memory.splits import SUFFIX_MEANING

    try:
        task_name, suffix = split_of(level_name, TASK_NAMES)
    except KeyError:
        raise unknown_name_error("memory-task level", level_name, all_level_names()) from None
    found = task(task_name)
    stimulus_set, scale_set = SUFFIX_MEANING[suffix]
    return found, found.build(level_name, found.stimuli.ids(stimulus_set), found.scale.values(scale_set))


def make_env(level_name: str, **settings):
    """The env of a memory-task level: ``MemoryTaskEnv`` (first-person tasks) or ``PsychlabEnv``
    (PsychLab tasks). Settings: width, height (pixels; default 96×72), observations (RGB_INTERLEAVED,
    AvatarPosition, Score), action_repeat (frames per step), episode_length_seconds."""
    for key in settings:
        if key not in SETTINGS:
            raise unknown_name_error("memory-task setting", key, SETTINGS)
    found, built = build(level_name)
    if found.kind == "psychlab":
        from jaxlab.psychlab.env import PsychlabEnv

        return PsychlabEnv(built, name=level_name, **settings)
    from jaxlab.memory.env import MemoryTaskEnv

    return MemoryTaskEnv(built, name=level_name, **settings)


LEVELS = {name: functools.partial(make_env, name) for name in all_level_names()}


def _ids(values) -> str:
    """A compact list of ids: runs of consecutive or every-other ids as ranges."""
    values = list(values)
    if len(values) > 6:
        step = values[1] - values[0]
        if all(b - a == step for a, b in zip(values, values[1:])):
            return f"{values[0]}, {values[1]}, …, {values[-1]} ({len(values)})"
    return ", ".join(str(v) for v in values)


def splits_table() -> str:
    """The markdown table of every task's stimulus sets and scale values (``docs/memorytasks.md`` holds it)."""
    rows = ["| task | stimuli | train ids | holdout ids | scale | train | small | large | interpolate | extrapolate |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name, found in tasks().items():
        s, c = found.stimuli, found.scale
        rows.append(f"| `{name}` | {s.what} | {_ids(s.train)} | {_ids(s.holdout)} | {c.name} | {_ids(c.train)} "
                    f"| {_ids(c.small)} | {_ids(c.large)} | {_ids(c.interpolate)} | {_ids(c.extrapolate)} |")
    return "\n".join(rows)
