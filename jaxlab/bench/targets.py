"""What ``jaxlab-bench`` times: one ``Target`` per env of a family, built lazily by ``Target.prepare``.

Each family's planner turns the command's options into targets with the family's own benchmark code
(``jaxlab.bench.first_person``, ``grid``, ``text``, ``memory``); the original (dmlab2d, TextWorld) is
measured in the same process where it is installed and comparable, and named with the reason where
it is not (DeepMind Lab, which dm_memorytasks runs on too, is not pip-installable).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable, Optional, Tuple

from jaxlab.bench import first_person, grid, memory, text
from jaxlab.bench.timing import batch_sizes, log, measure
from jaxlab.kernels.text import env as text_env

FAMILIES = ("first_person", "grid", "text", "memory")
FIRST_PERSON_LEVEL = "nav_maze_static_01"
GRID_LEVELS = ("pushbox", "jaxlab_commons_harvest")
MEMORY_LEVEL = "explore_goal_locations_train_large"
WIDTH, HEIGHT, ACTION_REPEAT = 96, 72, 4

#: ``prepare()``'s result: batch -> ``timing.measure`` dict, and the original's measurement (or None)
Prepared = Tuple[Callable[[int], dict], Optional[Callable[[], dict]]]


@dataclasses.dataclass
class Target:
    """One env to time at each of ``batches`` (``steps`` env steps per timed scan, ``repeats`` scans).

    ``setup`` says in one line what runs; ``original`` names the original it is compared with and
    ``missing`` why that is not measured ('' when it is). ``prepare()`` builds the env (and, for text,
    the games) only when the target's turn comes."""
    family: str
    env: str
    setup: str
    steps: int
    batches: Tuple[int, ...]
    original: str
    missing: str
    prepare: Callable[[], Prepared]


@dataclasses.dataclass
class Options:
    """The sizes a run uses (``jaxlab-bench``'s options after ``--quick`` and the family defaults)."""
    batches: Optional[Tuple[int, ...]]   # None: each family's default for the backend
    steps: Optional[int]                 # None: each family's default
    repeats: int
    originals: bool
    dm_steps: int
    tw_steps: int
    layouts: int
    grid_levels: Tuple[str, ...]
    memory_level: str
    text_games: Path                     # folder of TextWorld .json games (generated there when empty)
    game_names: Optional[Tuple[str, ...]]  # which default games to generate (None: all)


def _sizes(opts: Options, family) -> Tuple[Tuple[int, ...], int]:
    """``(batches, steps)`` for ``family`` (a ``jaxlab.bench`` family module): the options or its defaults."""
    batches = opts.batches or tuple(batch_sizes(None, family.CPU_BATCHES, family.ACCELERATOR_BATCHES))
    return batches, opts.steps or family.STEPS


def plan_first_person(opts: Options) -> list:
    """The first-person target: ``FIRST_PERSON_LEVEL`` at 96x72 RGB, action_repeat 4; DeepMind Lab not measured."""
    batches, steps = _sizes(opts, first_person)

    def prepare() -> Prepared:
        env = first_person.make_env(FIRST_PERSON_LEVEL, WIDTH, HEIGHT, ACTION_REPEAT)
        return (lambda batch: first_person.measure_batch(env, batch, steps, opts.repeats)), None

    return [Target("first_person", FIRST_PERSON_LEVEL,
                   f"`AutoReset(DiscreteActions)`, sticky random agent, {WIDTH}x{HEIGHT} RGB_INTERLEAVED "
                   f"rendered every step, action_repeat {ACTION_REPEAT}", steps, batches, "DeepMind Lab",
                   first_person.ORIGINAL_NOTE, prepare)]


def plan_grid(opts: Options) -> list:
    """One grid target per level of ``opts.grid_levels`` (WORLD.RGB on); dmlab2d where it is the same level."""
    batches, steps = _sizes(opts, grid)
    observations = ("WORLD.RGB",)

    def target(level: str) -> Target:
        missing = grid.dmlab2d_missing(level, skip=not opts.originals)

        def prepare() -> Prepared:
            env = grid.make_env(level, observations, opts.layouts)
            original = None if missing else (lambda: _dmlab2d(level, observations, opts))
            return (lambda batch: grid.measure_batch(env, batch, steps, opts.repeats)), original

        return Target("grid", level, f"`AutoReset(GridEnv)`, uniform random actions drawn on device, WORLD.RGB "
                                     f"rendered every step, maps from a bank of {opts.layouts}",
                      steps, batches, "dmlab2d", missing, prepare)

    return [target(level) for level in opts.grid_levels]


def _dmlab2d(level: str, observations, opts: Options) -> dict:
    """The original record of dmlab2d on ``level`` (``rate`` in steps/s)."""
    dm = grid.dmlab2d_rate(level, observations, opts.dm_steps, opts.repeats)
    return {"name": f"dmlab2d {dm['version']}", "rate": dm["rate"],
            "detail": f"one env in the same process, uniform random actions, {', '.join(dm['observations'])}; "
                      f"best of {len(dm['runs'])} runs of {opts.dm_steps:,} steps ({dm['resets']} resets included)"}


def plan_text(opts: Options) -> list:
    """The text target: the TextWorld games of ``opts.text_games`` in one bank, every TextEnv observation on;
    TextWorld plays the same games (asked for every text it has). No target without games and TextWorld."""
    batches, steps = _sizes(opts, text)
    missing = text.textworld_missing(skip=not opts.originals)
    games = list(opts.text_games.glob("*.json"))
    if text.textworld is None and not games:
        log("text: not run — its games are generated with TextWorld, which is not installed: "
            "pip install jaxlab[originals] (or pass --text-games DIR with TextWorld .json games)")
        return []
    count = len(games) or len(opts.game_names or text.CHALLENGE_GAMES + text.CUSTOM_GAMES)

    def prepare() -> Prepared:
        paths = text.game_paths(opts.text_games, opts.game_names)
        env = text.make_env(paths, text.MAX_STEPS, text_env.OBSERVATIONS)
        original = None if missing else (lambda: _textworld(paths, opts))
        return (lambda batch: text.measure_batch(env, batch, steps, opts.repeats)), original

    return [Target("text", f"{count} TextWorld game{'s' * (count != 1)}",
                   f"`AutoReset(TextEnv)` over one bank, random admissible-command agent, every observation "
                   f"({', '.join(text_env.OBSERVATIONS)}), episodes truncated at {text.MAX_STEPS} commands",
                   steps, batches, "TextWorld", missing, prepare)]


def _textworld(paths, opts: Options) -> dict:
    """The original record of TextWorld on the games at ``paths`` (``rate`` in steps/s)."""
    tw = text.textworld_rate(paths, opts.tw_steps, text.MAX_STEPS, use_json=False, texts=True)
    return {"name": f"TextWorld {tw['version']}", "rate": tw["rate"],
            "detail": f"{tw['engine']}; same games in the same process, every text requested; "
                      f"{tw['steps']:,} steps in {tw['seconds']:.1f} s, {opts.tw_steps} per game, resets included"}


def plan_memory(opts: Options) -> list:
    """The memory-task target: ``opts.memory_level`` at 96x72 RGB, action_repeat 1; dm_memorytasks not measured."""
    batches, steps = _sizes(opts, memory)

    def prepare() -> Prepared:
        env = memory.make_env(opts.memory_level, WIDTH, HEIGHT)

        def measure_batch(batch: int) -> dict:
            return measure(*memory.level_rollout(env, batch, steps), batch, steps, opts.repeats)
        return measure_batch, None

    return [Target("memory", opts.memory_level,
                   f"`VmapAutoReset(env)`, uniform random float actions, {WIDTH}x{HEIGHT} RGB_INTERLEAVED "
                   f"rendered every step, action_repeat 1 (dm_memorytasks' default)", steps, batches,
                   "dm_memorytasks", memory.ORIGINAL_NOTE, prepare)]


PLANNERS = {"first_person": plan_first_person, "grid": plan_grid, "text": plan_text, "memory": plan_memory}
