"""Text speed benchmark: TextWorld games imported into one bank and played by
``AutoReset(TextEnv(bank, infos))`` with a random admissible-command agent, stepped as a jitted
``lax.scan`` of ``jax.vmap(env.step)`` (observations in the scan carry, so all are computed for every
env at every step), and the ``textworld`` package playing the same games in the same process."""
from __future__ import annotations

import random
import time
from pathlib import Path

import jax
import jax.numpy as jnp

from jaxlab.bench.timing import initial_carry, log, make_rollout, measure
from jaxlab.bits import packed_words
from jaxlab.text import TextEnv, load_textworld_bank
from jaxlab.wrappers import AutoReset

try:
    import textworld
except ImportError:
    textworld = None

CPU_BATCHES = (1, 16, 256, 4096, 16384)
ACCELERATOR_BATCHES = CPU_BATCHES + (65536, 262144)
#: env steps per timed scan, TextWorld steps per game and episode truncation in commands, by default
STEPS, TW_STEPS, MAX_STEPS = 50, 300, 100
#: what TextWorld is asked for (EnvInfos), as TextEnv observations: the default comparison
MATCHING_OBSERVATIONS = ("feedback", "admissible", "score", "won", "lost", "moves")
#: (file name, TextWorld challenge, settings); the i-th game is generated with seed i + 1
CHALLENGE_GAMES = tuple((f"coin_collector-{n}", "tw-coin_collector", {"level": n}) for n in (5, 50, 150)) + tuple(
    (f"treasure_hunter-{n}", "tw-treasure_hunter", {"level": n}) for n in (5, 15, 25)) + (
    ("simple", "tw-simple", {"rewards": "balanced", "goal": "detailed", "test": False}),)
#: (file name, rooms, objects, quest length) of custom games (``textworld.generator.make_game``)
CUSTOM_GAMES = (("custom-4x10x3", 4, 10, 3), ("custom-8x20x5", 8, 20, 5))
#: how TextWorld plays a game file
ENGINES = {".z8": ".z8 in Jericho, with text feedback", ".json": ".json in TextWorld's Python engine, no feedback text"}


def generate_games(folder: Path, names=None) -> None:
    """Write the default games (those in ``names`` when given; each keeps its seed) to ``folder``: a
    ``.json`` each, and a ``.z8`` where Inform 7 compiles it."""
    from textworld.challenges import CHALLENGES
    from textworld.generator import CouldNotCompileGameError, compile_game, make_game
    from textworld.generator.game import GameOptions

    todo = [(name, challenge, settings) for name, challenge, settings in CHALLENGE_GAMES]
    todo += [(name, None, (rooms, objects, length)) for name, rooms, objects, length in CUSTOM_GAMES]
    for seed, (name, challenge, settings) in enumerate(todo, start=1):
        if names is not None and name not in names:
            continue
        log(f"generating {name}")
        options = GameOptions()
        options.seeds, options.path = seed, str(folder / f"{name}.z8")
        if challenge:
            game = CHALLENGES[challenge][1](settings=settings, options=options)
        else:
            options.nb_rooms, options.nb_objects, length = settings
            options.chaining.min_length = options.chaining.max_length = options.chaining.max_depth = length
            game = make_game(options)
        try:
            compile_game(game, options)  # saves the .json, then compiles the .z8
        except (CouldNotCompileGameError, OSError) as error:
            log(f"  {name}: no .z8 ({type(error).__name__}); TextWorld will play the .json")


def textworld_missing(skip: bool = False) -> str:
    """Why TextWorld is not measured ('' when it is): skipped or not installed."""
    return "skipped" if skip else "" if textworld is not None else "not installed: pip install jaxlab[originals]"


def game_paths(folder: Path, names=None) -> list:
    """The ``.json`` games in ``folder``, sorted; the default games (or ``names`` of them) are generated
    there first when it has none (needs ``textworld``)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not any(folder.glob("*.json")):
        if textworld is None:
            raise RuntimeError("generating games needs the textworld package (pip install jaxlab[originals]), "
                               "or pass a folder of TextWorld .json games")
        generate_games(folder, names)
    return sorted(folder.glob("*.json"))


def make_env(paths, max_steps: int, observations) -> AutoReset:
    """``AutoReset(TextEnv)`` over the games at ``paths`` (one padded bank) computing ``observations``,
    episodes truncated after ``max_steps`` commands."""
    bank, infos = load_textworld_bank(paths)
    return AutoReset(TextEnv(bank, infos, name="textworld", max_steps=max_steps, observations=observations))


def uniform_admissible(key: jax.Array, admissible: jnp.ndarray) -> jnp.ndarray:
    """int32[B]: a command drawn uniformly among each row's admissible ones (bool[B, K]), with one
    random number per env (the i-th admissible command for a uniform i), so the agent costs little.

    The mask is packed into 32-bit words: a prefix count over the words finds the word of the i-th
    admissible command and five halvings with population counts its bit (a prefix sum over all K
    commands would cost the agent about as much as the env's step on the CPU)."""
    batch = admissible.shape[0]
    packed = packed_words(admissible)
    words = packed.shape[-1]
    counts = jax.lax.population_count(packed).astype(jnp.int32)
    through = jnp.cumsum(counts, axis=-1)
    pick = jnp.floor(jax.random.uniform(key, (batch,)) * through[:, -1]).astype(jnp.int32)
    word = jnp.minimum(jnp.sum(through <= pick[:, None], axis=-1), words - 1)
    rest = pick - (jnp.take_along_axis(through - counts, word[:, None], axis=-1)[:, 0])
    x = jnp.take_along_axis(packed, word[:, None], axis=-1)[:, 0]
    pos = jnp.zeros(batch, jnp.uint32)
    for half in (16, 8, 4, 2, 1):
        low = jax.lax.population_count((x >> pos) & jnp.uint32((1 << half) - 1)).astype(jnp.int32)
        pos, rest = jnp.where(rest >= low, pos + half, pos), jnp.where(rest >= low, rest - low, rest)
    return jnp.where(through[:, -1] > 0, word * 32 + pos.astype(jnp.int32), 0).astype(jnp.int32)


def measure_batch(env, batch: int, steps: int, repeats: int, seed: int = 0) -> dict:
    """Time ``steps`` batched steps of ``batch`` envs of the random admissible-command agent: a
    ``timing.measure`` dict (seconds, ms, env-steps/s)."""
    rollout = make_rollout(env, steps, lambda key, observations: uniform_admissible(key, observations["admissible"]))
    return measure(rollout, initial_carry(env, batch, seed), batch, steps, repeats)


def textworld_rate(paths, steps: int, max_steps: int, use_json: bool, seed: int = 0, texts: bool = False) -> dict:
    """TextWorld's steps/s: the random admissible-command agent, ``steps`` steps per game, summed.

    Each game's ``.z8`` is played when it exists (unless ``use_json``),
    else its ``.json``. The clock runs from after the first reset to the
    last step; resets on done (won, lost or ``max_steps`` commands) count. ``texts``: ask for the
    description and inventory too.

    Returns ``{"rate"`` (steps/s), ``"steps"``, ``"seconds"``, ``"engine"`` (how the games were played),
    ``"version"``}``.
    """
    infos = textworld.EnvInfos(admissible_commands=True, score=True, won=True, lost=True, moves=True,
                               feedback=True, description=texts, inventory=texts)
    rng, total_s, engines = random.Random(seed), 0.0, set()
    for path in paths:
        played = path if use_json or not path.with_suffix(".z8").exists() else path.with_suffix(".z8")
        engines.add(ENGINES[played.suffix])
        env = textworld.start(str(played), request_infos=infos)
        state, length = env.reset(), 0
        t0 = time.perf_counter()
        for _ in range(steps):
            state, _, done = env.step(rng.choice(state["admissible_commands"]))
            length += 1
            if done or length >= max_steps:
                state, length = env.reset(), 0
        seconds = time.perf_counter() - t0
        env.close()
        log(f"TextWorld {played.name}: {steps / seconds:,.0f} steps/s")
        total_s += seconds
    return {"rate": steps * len(paths) / total_s, "steps": steps * len(paths), "seconds": total_s,
            "engine": "; ".join(sorted(engines)), "version": textworld.__version__}
