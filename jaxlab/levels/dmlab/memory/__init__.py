"""The memory-task suite (dm_memorytasks): 13 tasks, each under every split's level name.

``TASK_NAMES`` lists the base tasks by group; ``task(name)`` is a task's ``MemoryTask`` and
``build(level_name)`` what its env runs; every level name (``<task>_<suffix>``, ``splits.suffixes``)
is in ``all_level_names()``; a level is also reachable as ``memory/<name>`` and, for the DMLab-run
tasks, as ``contributed/psychlab/memory_suite_01/<name>``. The envs are made by the registry
(``jaxlab.registry.memory``). Task modules are imported on first use.
"""
from __future__ import annotations

import functools
from typing import Dict, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.levels.dmlab.memory.splits import SUFFIX_MEANING, level_names, split_of
# imported before ``tasks()`` is defined: a first import of the submodule later would set the
# package's ``tasks`` attribute to the module, shadowing the function
from jaxlab.levels.dmlab.memory import tasks as _task_types  # noqa: F401

PSYCHLAB_TASKS = ("arbitrary_visuomotor_mapping", "change_detection", "continuous_recognition", "what_then_where")
SPOT_DIFF_TASKS = ("spot_diff", "spot_diff_motion", "spot_diff_multi", "spot_diff_passive")
GOAL_NAVIGATION_TASKS = ("explore_goal_locations", "invisible_goal_empty_arena", "invisible_goal_with_buildings",
                         "visible_goal_with_buildings")
TRANSITIVE_INFERENCE_TASKS = ("transitive_inference",)
TASK_NAMES: Tuple[str, ...] = PSYCHLAB_TASKS + SPOT_DIFF_TASKS + GOAL_NAVIGATION_TASKS + TRANSITIVE_INFERENCE_TASKS
PATH_PREFIXES = ("memory/", "contributed/psychlab/memory_suite_01/")


@functools.lru_cache(maxsize=None)
def _group_tasks(group: Tuple[str, ...]) -> Dict[str, object]:
    """base name -> ``MemoryTask`` of one group of tasks (imports only that group's module)."""
    if group == PSYCHLAB_TASKS:
        from jaxlab.levels.dmlab.memory.psychlab_tasks import TASKS
    elif group == SPOT_DIFF_TASKS:
        from jaxlab.levels.dmlab.memory.spot_diff import TASKS
    elif group == GOAL_NAVIGATION_TASKS:
        from jaxlab.levels.dmlab.memory.goal_navigation import TASKS
    else:
        from jaxlab.levels.dmlab.memory.transitive_inference import TASKS
    return {found.name: found for found in TASKS}


def task(name: str):
    """The ``MemoryTask`` of base name ``name`` (imports only its group's module)."""
    for group in (PSYCHLAB_TASKS, SPOT_DIFF_TASKS, GOAL_NAVIGATION_TASKS, TRANSITIVE_INFERENCE_TASKS):
        if name in group:
            return _group_tasks(group)[name]
    raise unknown_name_error("memory task", name, TASK_NAMES)


def tasks() -> Dict[str, object]:
    """base name -> ``MemoryTask`` of every task, in ``TASK_NAMES`` order (imports every task module)."""
    return {name: task(name) for name in TASK_NAMES}


def all_level_names() -> Tuple[str, ...]:
    """Every level name of the suite (13 tasks × their suffixes), grouped by task."""
    return tuple(name for task in TASK_NAMES for name in level_names(task))


def build(level_name: str):
    """``(task, built)``: the ``MemoryTask`` of ``level_name`` and what its env runs, the task's ``build``
    for the split's stimuli and scale values (UnknownNameError with suggestions for an unknown name)."""
    try:
        task_name, suffix = split_of(level_name, TASK_NAMES)
    except KeyError:
        raise unknown_name_error("memory-task level", level_name, all_level_names()) from None
    found = task(task_name)
    stimulus_set, scale_set = SUFFIX_MEANING[suffix]
    return found, found.build(level_name, found.stimuli.ids(stimulus_set), found.scale.values(scale_set))


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
