"""Text speed side by side with TextWorldExpress: coin collector and cooking, in TextWorldExpress
(``textworld_express``, a Scala/Java reimplementation driven from Python through py4j, one env at a
time) and in jaxlab, through jaxlab's host API one env at a time (``jaxlab.text.start``) and batched
(a jitted ``lax.scan`` of ``jax.vmap(env.step)``, ``jaxlab.bench.text.measure_batch``).

Every side plays a random agent drawing uniformly among the admissible commands, resets when the
game is won, lost or ``max_steps`` commands long, and counts env-steps per second (resets included).
``GAMES`` pairs each TextWorldExpress game with jaxlab games of a similar size.
"""
from __future__ import annotations

import random
import shutil
import time
from dataclasses import dataclass, field

import jax

from jaxlab.bench.text import measure_batch
from jaxlab.bench.timing import device_and_date, log
from jaxlab.text import EnvInfos, make_env, start
from jaxlab.text import make as make_game
from jaxlab.wrappers import AutoReset

try:
    import textworld_express
except ImportError:
    textworld_express = None

#: TextWorldExpress steps per game timed, untimed warm-up steps before them (the JVM compiles its hot
#: paths during the first thousands of steps), jaxlab host-API steps per game, games in jaxlab's banks
TWX_STEPS, TWX_WARMUP, HOST_STEPS, NUM_GAMES = 20000, 5000, 1000, 64
#: the project's target per game: jaxlab's batched rate over TextWorldExpress's one-env rate
TARGETS = {"coin collector": 100, "cooking": 50}
#: jaxlab games the host API plays in turn, one ``Environment`` (one compiled step) each
HOST_GAMES = 4


@dataclass(frozen=True)
class Pair:
    """A TextWorldExpress game and the jaxlab family of similar size.

    name: the row label; twx_game, twx_params: ``TextWorldExpressEnv.load``'s ``gameName`` and
    ``gameParams``; family, options: ``jaxlab.make(family, **options)``'s (the games of seeds 0, 1, ...).
    """

    name: str
    twx_game: str
    twx_params: str
    family: str
    options: dict = field(default_factory=dict)

    def twx_text(self) -> str:
        """The TextWorldExpress side as the output names it, e.g. ``coin (numLocations=11, ...)``."""
        return f"`{self.twx_game}` ({self.twx_params.replace(',', ', ')})"

    def jaxlab_text(self) -> str:
        """The jaxlab side as the output names it, e.g. ``tw-coin_collector (level=11)``."""
        return f"`{self.family}` ({', '.join(f'{k}={v}' for k, v in self.options.items())})"


#: coin: 11 rooms, no doors, no distractors (jaxlab's level 11 is a chain of 11 rooms without doors);
#: cooking: 3-ingredient recipe to find, cook and cut in 9 rooms with closed doors, 4 distractor foods
#: (jaxlab's cooking places 4), unlimited inventory (jaxlab's ``drop=False``)
GAMES = (
    Pair("coin collector", "coin", "numLocations=11,numDistractorItems=0,includeDoors=0,limitInventorySize=0",
         "tw-coin_collector", {"level": 11}),
    Pair("cooking", "cookingworld",
         "numLocations=9,numIngredients=3,numDistractorItems=4,includeDoors=1,limitInventorySize=0",
         "tw-cooking", {"recipe": 3, "take": 3, "go": 9, "open": True, "cook": True, "cut": True}),
)


def twx_missing() -> str:
    """Why TextWorldExpress is not measured ('' when it is): not installed, or no ``java`` on the PATH."""
    if textworld_express is None:
        return "textworld_express not installed: pip install jaxlab[originals]"
    if shutil.which("java") is None:
        return "TextWorldExpress needs Java (no `java` on the PATH)"
    return ""


def twx_rate(pair: Pair, steps: int = TWX_STEPS, warmup: int = TWX_WARMUP, max_steps: int = 100,
             seed: int = 0) -> dict:
    """TextWorldExpress's steps/s on ``pair``'s game through its Python API, one env.

    The random agent picks uniformly among ``infos["validActions"]``; an episode ends when the env
    says done (won, lost, or more than ``max_steps`` moves: its ``envStepLimit``), and the next
    starts with the next training seed (a new game; resets are timed). ``warmup`` steps are played
    first and not timed.

    Returns ``{"rate"`` (steps/s), ``"steps"``, ``"seconds"``, ``"episodes"`` (ended in the timed
    steps), ``"version"``}``.
    """
    env = textworld_express.TextWorldExpressEnv(envStepLimit=max_steps)
    try:
        env.load(gameName=pair.twx_game, gameParams=pair.twx_params)
        seeds = list(env.getValidSeedsTrain())
        rng, episode = random.Random(seed), 0
        _, infos = env.reset(seed=seeds[0], gameFold="train")
        t0, episodes = None, 0
        for i in range(warmup + steps):
            if i == warmup:
                t0, episodes = time.perf_counter(), 0
            _, _, done, infos = env.step(rng.choice(infos["validActions"]))
            if done:
                episode, episodes = episode + 1, episodes + 1
                _, infos = env.reset(seed=seeds[episode % len(seeds)], gameFold="train")
        seconds = time.perf_counter() - t0
    finally:
        env.close()
    log(f"TextWorldExpress {pair.twx_game}: {steps / seconds:,.0f} steps/s")
    return {"rate": steps / seconds, "steps": steps, "seconds": seconds, "episodes": episodes,
            "version": textworld_express.__version__}


def host_rate(pair: Pair, steps: int = HOST_STEPS, games: int = HOST_GAMES, max_steps: int = 100,
              seed: int = 0) -> dict:
    """jaxlab's steps/s on ``pair``'s family through its host API (``jaxlab.text.start``), one env.

    ``games`` games (seeds 0 ..) each get an ``Environment`` asked for the admissible commands
    (feedback, score, won, lost and moves come with every state); each is compiled and played once
    before the clock starts. The random agent picks uniformly among ``state["admissible_commands"]``
    and plays the command string; an episode ends when done or ``max_steps`` commands long, and the
    next plays the next game. ``steps`` steps are timed in all, resets included.

    Returns ``{"rate"`` (steps/s), ``"steps"``, ``"seconds"``, ``"episodes"``, ``"games"``}``.
    """
    infos = EnvInfos(admissible_commands=True, score=True, won=True, lost=True, moves=True)
    envs = [start(make_game(pair.family, seed=i, **pair.options), infos, max_steps=max_steps) for i in range(games)]
    for env in envs:  # compile reset and step
        env.step(env.reset()["admissible_commands"][0])
    rng, current, length, episodes = random.Random(seed), 0, 0, 0
    state = envs[0].reset()
    t0 = time.perf_counter()
    for _ in range(steps):
        state, _, done = envs[current].step(rng.choice(state["admissible_commands"]))
        length += 1
        if done or length >= max_steps:
            current, length, episodes = (current + 1) % games, 0, episodes + 1
            state = envs[current].reset()
    seconds = time.perf_counter() - t0
    log(f"jaxlab host API {pair.family}: {steps / seconds:,.0f} steps/s")
    return {"rate": steps / seconds, "steps": steps, "seconds": seconds, "episodes": episodes, "games": games}


def batched_env(pair: Pair, observations, num_games: int = NUM_GAMES, max_steps: int = 100) -> AutoReset:
    """``AutoReset(TextEnv)`` over ``num_games`` of ``pair``'s family (seeds 0 ..; one bank, a game
    drawn per episode) computing ``observations``, episodes truncated after ``max_steps`` commands."""
    return AutoReset(make_env(pair.family, seed=0, num_games=num_games, max_steps=max_steps,
                              observations=tuple(observations), **pair.options))


HEADER = ("| game | engine | batch | env-steps/s (median) | env-steps/s (best) | step (ms) "
          "| compile + first call (s) | × TextWorldExpress |\n|---|---|---:|---:|---:|---:|---:|---:|")


def describe(args, observations, twx_note: str) -> str:
    """The section heading and setup lines of a side-by-side run (``args``: ``benchmarks/text.py``'s)."""
    games = "; ".join(f"{p.name}: TextWorldExpress {p.twx_text()} vs jaxlab {p.jaxlab_text()}" for p in GAMES)
    twx = (f"TextWorldExpress {textworld_express.__version__} through its Python API (py4j to the JVM), one env, "
           f"{args.twx_steps:,} steps timed after {TWX_WARMUP:,} warm-up steps, a new training seed per episode"
           if not twx_note else f"TextWorldExpress not measured ({twx_note})")
    return (f"### Text quests side by side with TextWorldExpress: coin collector and cooking, random admissible-"
            f"command agent — {device_and_date()}\n\n"
            f"jax {jax.__version__}; {games}. {twx}. jaxlab host API: `jaxlab.text.start` on {HOST_GAMES} "
            f"games played in turn, {args.host_steps:,} command strings timed (admissible commands, feedback, "
            f"score, won, lost, moves decoded per step). jaxlab batched: `AutoReset(TextEnv)` over "
            f"{args.express_games} games (seeds 0–{args.express_games - 1}), observations: "
            f"{', '.join(observations)}; jitted `lax.scan` of {args.steps} steps of `jax.vmap(env.step)`, "
            f"median/best of {args.repeats}. Episodes end when won, lost or {args.max_steps} commands long "
            f"(resets timed) everywhere; × TextWorldExpress = median rate / TextWorldExpress's rate.")


def express_rows(args, batches, observations, twx_note: str, measured: dict | None = None):
    """Yield the markdown table rows (``HEADER``'s columns) of ``GAMES``: TextWorldExpress, jaxlab's
    host API, and jaxlab batched per batch size in ``batches`` (``measure_batch``), each printed as it
    is measured. ``args``: ``benchmarks/text.py``'s (``twx_steps``, ``host_steps``, ``express_games``,
    ``steps``, ``repeats``, ``max_steps``); ``twx_note``: why TextWorldExpress is not measured ('' when
    it is); ``measured``: if given, filled with ``plot_express``'s input as the rows are measured."""
    for pair in GAMES:
        twx = None if twx_note else twx_rate(pair, args.twx_steps, TWX_WARMUP, args.max_steps)
        mine = {"twx": twx["rate"] if twx else None, "batched": []}
        if measured is not None:
            measured[pair.name] = mine

        def ratio(rate):
            return f"{rate / twx['rate']:,.1f}×" if twx else "—"

        if twx:
            yield _emit(f"| {pair.name} | TextWorldExpress {twx['version']} (Python API) | 1 | {twx['rate']:,.0f} "
                        f"| — | {1e3 / twx['rate']:.3f} | — | 1.0× |")
        host = host_rate(pair, args.host_steps, HOST_GAMES, args.max_steps)
        yield _emit(f"| {pair.name} | jaxlab host API (`jaxlab.text.start`) | 1 | {host['rate']:,.0f} | — "
                    f"| {1e3 / host['rate']:.3f} | — | {ratio(host['rate'])} |")
        log(f"compiling {args.express_games} {pair.family} games")
        env = batched_env(pair, observations, args.express_games, args.max_steps)
        for batch in batches:
            r = measure_batch(env, batch, args.steps, args.repeats)
            mine["batched"].append((batch, r["median"]))
            yield _emit(f"| {pair.name} | jaxlab batched (`vmap` + `scan`) | {batch} | {r['median']:,.0f} "
                        f"| {r['best']:,.0f} | {r['step_ms']:.3f} | {r['compile_s']:.1f} | {ratio(r['median'])} |")


def plot_express(measured: dict, path: str) -> None:
    """Save a log-log PNG at ``path``: jaxlab's batched env-steps/s (median) against batch size per game
    of ``GAMES``, with TextWorldExpress's one-env rate (dashed) and the project's target multiple of it
    (``TARGETS``, dotted) in the game's colour. ``measured``: ``express_rows``'s, {game name: {"twx":
    steps/s or None, "batched": [(batch, env-steps/s)]}}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.5, 5), dpi=120)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (game, m) in enumerate(measured.items()):
        color = colors[i % len(colors)]
        ax.plot(*zip(*m["batched"]), marker="o", color=color, label=f"jaxlab batched: {game}")
        if m["twx"]:
            ax.axhline(m["twx"], color=color, linestyle="--", linewidth=1.2,
                       label=f"TextWorldExpress, 1 env ({game}): {m['twx']:,.0f}/s")
            ax.axhline(TARGETS[game] * m["twx"], color=color, linestyle=":", linewidth=1.5,
                       label=f"{TARGETS[game]}× TextWorldExpress ({game})")
    batches = sorted({b for m in measured.values() for b, _ in m["batched"]})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(batches, [f"{b:,}" for b in batches])
    ax.minorticks_off()
    ax.set_xlabel("batch size (envs stepped together)")
    ax.set_ylabel("env-steps/s (median)")
    ax.set_title(f"Text quests beside TextWorldExpress\n{device_and_date()}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)


def _emit(row: str) -> str:
    """Print ``row`` (stdout, flushed) and return it."""
    print(row, flush=True)
    return row
