"""DMLab-30: the thirty levels every DeepMind Lab paper reports, under their DMLab names.

``TRAIN_LEVELS`` and ``TEST_LEVELS`` list the suite as IMPALA trains and
tests on it (they differ in the two held-out ``rooms_*`` levels);
``generators()`` gives the levels jaxlab has (procedural ``LevelGenerator``s,
keyed by name); ``PATH_PREFIX`` + name is the level's DMLab path, accepted by
``jaxlab.make`` too. ``scores`` holds the published human and random scores.
"""
from __future__ import annotations

import functools
from typing import Dict, Tuple

from jaxlab.levels.dmlab.dmlab30.scores import DMLAB30_SCORES, SCORED_AS, dmlab30_score, human_normalized

PATH_PREFIX = "contributed/dmlab30/"
#: the 30 levels in their test form (the DMLab-30 scoring names)
TEST_LEVELS: Tuple[str, ...] = tuple(DMLAB30_SCORES)
#: the 30 levels as agents train on them (``*_train`` for the two held-out rooms_* levels)
TRAIN_LEVELS: Tuple[str, ...] = tuple({test: train for train, test in SCORED_AS.items()}.get(n, n)
                                      for n in TEST_LEVELS)


@functools.lru_cache(maxsize=None)
def generators() -> Dict[str, object]:
    """name -> ``LevelGenerator`` of every DMLab-30 level jaxlab has (train and test forms), sorted.
    Imported on first use: building the tables costs a little, so ``import jaxlab`` does not pay it."""
    from jaxlab.levels.dmlab.dmlab30 import (collect_good_objects, deferred_effects, explore, keys_doors, language,
                                             lasertag, natlab, select_nonmatching, skymaze, watermaze)

    table: Dict[str, object] = {}
    for module in (explore, collect_good_objects, deferred_effects, select_nonmatching, watermaze, keys_doors,
                   skymaze, natlab, lasertag, language):
        table.update(module.GENERATORS)
    return dict(sorted(table.items()))


def missing(levels=TRAIN_LEVELS) -> Tuple[str, ...]:
    """The names among ``levels`` (default: the training suite) that jaxlab does not have yet (neither
    a first-person generator nor a PsychLab screen level)."""
    from jaxlab.levels.dmlab.dmlab30.psychlab import SCREEN_LEVELS

    have = set(generators()) | set(SCREEN_LEVELS)
    return tuple(name for name in levels if name not in have)


__all__ = ["PATH_PREFIX", "TEST_LEVELS", "TRAIN_LEVELS", "generators", "missing", "DMLAB30_SCORES",
           "dmlab30_score", "human_normalized"]
