"""``jaxlab.suite``: one env whose batch mixes DMLab-30 levels (IMPALA's multi-task setting)."""
from __future__ import annotations

import warnings
from typing import Sequence, Union

from jaxlab.errors import unknown_name_error

#: suite names -> the levels they stand for (``jaxlab.levels.dmlab.dmlab30``)
SUITES = ("dmlab30", "dmlab30_test")


def suite(levels: Union[str, Sequence[str]] = "dmlab30", **settings):
    """One env over several DMLab-30 levels: each episode (each env of a vmapped batch, and each
    auto-reset) draws one of them; ``state.level_index`` says which. A ``FirstPersonEnv`` when every
    level is a first-person one, a ``PsychlabScreenEnv`` when every one is a PsychLab screen, else a
    ``SuiteEnv`` holding both (``jaxlab.kernels.suite``).

    Args:
      levels: ``"dmlab30"`` (the 30 DMLab-30 levels as agents train on them,
        ``*_train`` for the held-out rooms_* levels), ``"dmlab30_test"`` (the
        test forms), or a list of level names or DMLab paths
        (``contributed/dmlab30/<name>``).
      settings: the first-person settings (width, height, observations,
        action_repeat, fps, episode_length_seconds).

    The env's ``levels`` lists its level names in ``level_index`` order; for
    a named suite, ``missing_levels`` lists the suite's levels jaxlab does
    not have yet (left out, with a warning). Scores: ``jaxlab.levels.dmlab.dmlab30.dmlab30_score``.
    """
    # imported on first use: the DMLab-30 tables cost a little, so ``import jaxlab`` does not pay it
    from jaxlab.kernels.first_person.env import FirstPersonEnv
    from jaxlab.kernels.psychlab.dmlab30_env import PsychlabScreenEnv
    from jaxlab.kernels.suite.mixed import SuiteEnv
    from jaxlab.levels.dmlab import dmlab30
    from jaxlab.levels.dmlab.dmlab30.psychlab import SCREEN_LEVELS
    from jaxlab.levels.dmlab.mixed import MixedGenerator
    from jaxlab.registry import first_person

    first_person.check(settings)
    have = {**dmlab30.generators(), **SCREEN_LEVELS}
    missing: tuple = ()
    if isinstance(levels, str):
        if levels not in SUITES:
            raise unknown_name_error("suite", levels, SUITES)
        wanted = dmlab30.TRAIN_LEVELS if levels == "dmlab30" else dmlab30.TEST_LEVELS
        missing = dmlab30.missing(wanted)
        if missing:
            warnings.warn(f"suite {levels!r}: {len(missing)} of its {len(wanted)} levels are not built yet and are "
                          f"left out: {', '.join(missing)}", stacklevel=2)
        name, names = levels, [n for n in wanted if n in have]
    else:
        names = [str(n)[len(dmlab30.PATH_PREFIX):] if str(n).startswith(dmlab30.PATH_PREFIX) else str(n)
                 for n in levels]
        for n in names:
            if n not in have:
                raise unknown_name_error("procedural level", n, have)
        name = "+".join(names)
    if not names:
        raise ValueError("a suite needs at least one level")
    worlds = [n for n in names if n not in SCREEN_LEVELS]
    screens = [n for n in names if n in SCREEN_LEVELS]
    world = screen = None
    if worlds:
        world = FirstPersonEnv(generator=MixedGenerator([have[n] for n in worlds], name=name), name=name, **settings)
        world.levels = tuple(worlds)
    if screens:
        if settings.get("players", 1) != 1:
            raise ValueError("PsychLab levels have one player: a suite holding them takes players=1")
        screen = PsychlabScreenEnv(levels=screens, name=name,
                                   **{k: v for k, v in settings.items() if k != "players"})
    env = world if not screens else screen if not worlds else SuiteEnv(world, screen, names, name)
    env.levels = tuple(names)
    env.missing_levels = tuple(missing)
    return env
