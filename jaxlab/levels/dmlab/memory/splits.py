"""The memory-task suite's level names and splits: which stimuli and which scale values each suffix uses.

A task has two disjoint stimulus sets, ``train`` and ``holdout`` (ids into the task's own procedural
stimulus space: block looks, object looks, image ids, colours, goal rows), and a scale dimension (room
size, number of objects, delay, ...) with train values and interpolate / extrapolate values. A level
name is ``<task>_<suffix>``; the suffix picks a stimulus set and a scale set as dm_memorytasks does:

=======================  ========  =============================================
suffix                   stimuli   scale values
=======================  ========  =============================================
``train``                train     the train values
``train_small``          train     the small train values (two tasks: instead of ``train``)
``train_large``          train     the large train values (two tasks: instead of ``train``)
``interpolate``          train     the interpolate values (strictly between train values)
``extrapolate``          train     the extrapolate values (beyond the train values)
``holdout_interpolate``  holdout   the interpolate values
``holdout_extrapolate``  holdout   the extrapolate values
``holdout_small``        holdout   the small train values
``holdout_large``        holdout   the large train values
=======================  ========  =============================================
"""
from __future__ import annotations

from typing import Dict, NamedTuple, Tuple

#: suffixes of every task, in the order the original's documentation gives them
SUFFIXES: Tuple[str, ...] = ("train", "holdout_interpolate", "holdout_extrapolate", "interpolate", "extrapolate",
                             "holdout_small", "holdout_large")
#: the two tasks whose train level is two levels, ``_train_small`` and ``_train_large``
SPLIT_TRAIN_TASKS: Tuple[str, ...] = ("explore_goal_locations", "transitive_inference")
#: suffix -> (stimulus set, scale set)
SUFFIX_MEANING: Dict[str, Tuple[str, str]] = {
    "train": ("train", "train"),
    "train_small": ("train", "small"),
    "train_large": ("train", "large"),
    "interpolate": ("train", "interpolate"),
    "extrapolate": ("train", "extrapolate"),
    "holdout_interpolate": ("holdout", "interpolate"),
    "holdout_extrapolate": ("holdout", "extrapolate"),
    "holdout_small": ("holdout", "small"),
    "holdout_large": ("holdout", "large"),
}


class Scale(NamedTuple):
    """A task's scale dimension: its name and unit, and the values each scale set draws from (uniformly,
    per episode). ``small`` and ``large`` are the lower and upper part of ``train``."""

    name: str
    train: Tuple[int, ...]
    interpolate: Tuple[int, ...]
    extrapolate: Tuple[int, ...]
    small: Tuple[int, ...]
    large: Tuple[int, ...]

    def values(self, scale_set: str) -> Tuple[int, ...]:
        """The values of ``scale_set`` (``train``, ``interpolate``, ``extrapolate``, ``small``, ``large``)."""
        return getattr(self, scale_set)


class Stimuli(NamedTuple):
    """A task's two disjoint stimulus sets: ``what`` names the stimulus kind; ``train`` and ``holdout``
    are the ids each split draws from (ids index the task's procedural stimulus space)."""

    what: str
    train: Tuple[int, ...]
    holdout: Tuple[int, ...]

    def ids(self, stimulus_set: str) -> Tuple[int, ...]:
        """The ids of ``stimulus_set`` (``train`` or ``holdout``)."""
        return getattr(self, stimulus_set)


def suffixes(task: str) -> Tuple[str, ...]:
    """The level suffixes of ``task``: ``SUFFIXES``, with ``train_small``/``train_large`` for ``train``
    in ``SPLIT_TRAIN_TASKS``."""
    if task in SPLIT_TRAIN_TASKS:
        return ("train_small", "train_large") + SUFFIXES[1:]
    return SUFFIXES


def level_names(task: str) -> Tuple[str, ...]:
    """Every level name of ``task`` (``<task>_<suffix>``)."""
    return tuple(f"{task}_{suffix}" for suffix in suffixes(task))


def split_of(level_name: str, tasks) -> Tuple[str, str]:
    """(task, suffix) of a level name, the task being the longest of ``tasks`` it starts with;
    KeyError if it is none of their level names."""
    for task in sorted(tasks, key=len, reverse=True):
        if level_name.startswith(task + "_") and level_name[len(task) + 1:] in suffixes(task):
            return task, level_name[len(task) + 1:]
    raise KeyError(level_name)


def even_odd(n: int) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """(even ids, odd ids) of ``range(n)``: PsychLab's train / held-out image split."""
    return tuple(range(0, n, 2)), tuple(range(1, n, 2))
