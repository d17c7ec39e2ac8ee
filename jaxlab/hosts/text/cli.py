"""``jaxlab-tw``: make, play and extract text games, modelled on TextWorld's ``tw-make``,
``tw-play`` and ``tw-extract``.

Usage::

    jaxlab-tw make tw-coin_collector --level 5 [--seed 0] [--output PATH]
    jaxlab-tw make tw-simple --rewards dense --goal detailed [--test]
    jaxlab-tw make custom --world-size 5 --nb-objects 10 --quest-length 5 [--quest-breadth 1]
    jaxlab-tw make tw-cooking --recipe 3 --take 3 --go 9 --open --cook --cut [--recipe-seed 0] [--split train]
    jaxlab-tw play GAME.json [--mode human|random|random-cmd|walkthrough] [--max-steps N] [--seed S]
    jaxlab-tw extract vocab|entities|walkthroughs|commands GAME.json ... [--output FILE] [--merge] [-f]

Games are TextWorld ``.json`` files (jaxlab's or TextWorld's own). Errors are
printed as one line on stderr with exit status 1 (2 for usage errors).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Callable, Dict, Iterable, List, Optional

import numpy as np

from jaxlab.errors import UnknownNameError

FAMILIES = {"tw-coin_collector": "tw-coin_collector", "tw-treasure_hunter": "tw-treasure_hunter",
            "tw-simple": "tw-simple", "tw-cooking": "tw-cooking", "custom": "tw-custom"}
EXTRACTS = ("vocab", "entities", "walkthroughs", "commands")
#: tw-make options jaxlab-tw make accepts but does not implement: option -> (families, why)
UNSUPPORTED = {
    "format": ("all", "jaxlab writes TextWorld .json games, not compiled .z8/.ulx ones "
                      "(play them with jaxlab-tw play, jaxlab.make or textworld.start on the .json)"),
    "overview": ("all", "no overview pictures"), "save_overview": ("all", "no overview pictures"),
    "include_adj": ("custom", "grammar options are not implemented"),
    "blend_descriptions": ("custom", "grammar options are not implemented"),
    "ambiguous_instructions": ("custom", "grammar options are not implemented"),
    "only_last_action": ("custom", "grammar options are not implemented"),
    "blend_instructions": ("custom", "grammar options are not implemented"),
    "entity_numbering": ("custom", "grammar options are not implemented"),
    "nb_parallel_quests": ("custom", "one quest chain per game (use --quest-breadth)"),
    "quest_min_breadth": ("custom", "give --quest-breadth"), "quest_max_breadth": ("custom", "give --quest-breadth"),
    "quest_min_depth": ("custom", "give --quest-length"), "quest_max_depth": ("custom", "give --quest-length"),
}


def _add_make(sub) -> None:
    make = sub.add_parser("make", help="generate a game (tw-make)")
    families = make.add_subparsers(dest="family", required=True, metavar="FAMILY")
    for name in FAMILIES:
        p = families.add_parser(name, help=f"a {name} game")
        p.add_argument("--seed", type=int, default=0, help="generation seed (default 0)")
        p.add_argument("--output", default="./tw_games/",
                       help="file, or folder for <name>.json (default ./tw_games/)")
        p.add_argument("-f", "--force", action="store_true", help="overwrite an existing file")
        p.add_argument("--silent", action="store_true", help="print nothing")
        p.add_argument("-v", "--verbose", action="store_true", help="accepted for tw-make compatibility")
        for option, (families_, why) in UNSUPPORTED.items():
            if families_ == "all" or name == families_:
                flag = "--" + option.replace("_", "-")
                if option in ("format", "nb_parallel_quests") or option.startswith("quest_"):
                    p.add_argument(flag, default=None, help=f"unsupported: {why}")
                else:
                    p.add_argument(flag, action="store_true", default=None, help=f"unsupported: {why}")
        if name in ("tw-coin_collector", "tw-treasure_hunter"):
            p.add_argument("--level", type=int, required=True, help="difficulty level")
        elif name == "tw-cooking":
            p.add_argument("--recipe", type=int, default=1, help="ingredients in the recipe, 1-5 (default 1)")
            p.add_argument("--take", type=int, default=0, help="ingredients to find (default 0)")
            p.add_argument("--go", type=int, default=1, choices=(1, 6, 9, 12), help="rooms (default 1)")
            for flag, what in (("open", "doors and containers start closed"), ("cook", "ingredients need cooking"),
                               ("cut", "ingredients need cutting"),
                               ("drop", "a limited inventory: as many things as the recipe has ingredients")):
                p.add_argument(f"--{flag}", action="store_true", help=what)
            p.add_argument("--recipe-seed", type=int, default=0, help="seed of the recipe (default 0)")
            p.add_argument("--split", choices=("train", "valid", "test"), default=None,
                           help="draw the recipe from one split (default any)")
        elif name == "tw-simple":
            p.add_argument("--rewards", choices=("dense", "balanced", "sparse"), required=True)
            p.add_argument("--goal", choices=("detailed", "brief", "none"), required=True)
            p.add_argument("--test", action="store_true", help="draw from the held-out distribution")
        else:
            p.add_argument("--world-size", type=int, default=5, help="number of rooms (default 5)")
            p.add_argument("--nb-objects", type=int, default=10, help="number of objects (default 10)")
            p.add_argument("--quest-length", type=int, default=5, help="actions the quest needs (default 5)")
            p.add_argument("--quest-min-length", type=int, default=None, help="with --quest-max-length equal to it: "
                           "the quest length (a range is unsupported)")
            p.add_argument("--quest-max-length", type=int, default=None, help="see --quest-min-length")
            p.add_argument("--quest-breadth", type=int, default=1, help="sub-quests joined in the goal (default 1)")
            p.add_argument("--theme", default="house", help="text theme (default house)")


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``jaxlab-tw``."""
    ap = argparse.ArgumentParser(prog="jaxlab-tw", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    _add_make(sub)
    play = sub.add_parser("play", help="play a game (tw-play)")
    play.add_argument("game", help="a .json game file")
    play.add_argument("--mode", choices=("human", "random", "random-cmd", "walkthrough"), default="human")
    play.add_argument("--max-steps", type=int, default=0, help="stop after N commands (0: no limit)")
    play.add_argument("--seed", type=int, default=0, help="seed of the random agents")
    extract = sub.add_parser("extract", help="extract information from games (tw-extract)")
    extract.add_argument("what", choices=EXTRACTS)
    extract.add_argument("games", nargs="+", help=".json game files")
    extract.add_argument("--output", help="output file (default <what>.txt)")
    extract.add_argument("--merge", action="store_true", help="merge with the existing output file")
    extract.add_argument("-f", "--force", action="store_true", help="overwrite an existing output file")
    return ap


def unsupported_options(args) -> List[str]:
    """'--option (why)' for each tw-make option given that jaxlab-tw make does not implement."""
    given = [f"--{k.replace('_', '-')} ({why})" for k, (_, why) in UNSUPPORTED.items()
             if getattr(args, k, None) not in (None, False)]
    low, high = getattr(args, "quest_min_length", None), getattr(args, "quest_max_length", None)
    if (low, high) != (None, None):
        if low is None or high is None or low != high:
            given.append("--quest-min-length/--quest-max-length (a range of quest lengths; give both equal, or "
                         "--quest-length)")
        else:
            args.quest_length = low
    return given


def run_make(args) -> int:
    """Generate one game and save it; prints the path."""
    from jaxlab.hosts.text.game_api import make

    refused = unsupported_options(args)
    if refused:
        print("jaxlab-tw make: unsupported tw-make option(s): " + "; ".join(refused), file=sys.stderr)
        return 2

    options = {k: getattr(args, k) for k in ("level", "rewards", "goal", "test", "world_size", "nb_objects",
                                             "quest_length", "quest_breadth", "theme", "recipe", "take", "go", "open",
                                             "cook", "cut", "drop", "recipe_seed", "split") if hasattr(args, k)}
    game = make(FAMILIES[args.family], seed=args.seed, **options)
    path = args.output
    if path.endswith(os.sep) or os.path.isdir(path) or not path.endswith(".json"):
        os.makedirs(path, exist_ok=True)
        path = os.path.join(path, game.name + ".json")
    if os.path.exists(path) and not args.force:
        raise FileExistsError(f"{path} exists (use -f to overwrite)")
    game.save(path)
    if not args.silent:
        print(f"Game generated: {path} ({len(game.walkthrough)} walkthrough steps, max score {game.max_score:g})")
    return 0


def _agent(mode: str, game, seed: int) -> Callable[[dict], str]:
    rng = np.random.default_rng(seed)
    walkthrough = iter(game.walkthrough)
    commands = list(game.info.commands)
    if mode == "walkthrough":
        return lambda state: next(walkthrough, "look")
    if mode == "random":
        return lambda state: state["admissible_commands"][rng.integers(len(state["admissible_commands"]))]
    if mode == "random-cmd":
        return lambda state: commands[rng.integers(len(commands))]

    def human(state):
        try:
            return input("> ")
        except EOFError:
            return "quit"

    return human


def run_play(args) -> int:
    """Play a game in the terminal with a human or an automatic agent."""
    from jaxlab.hosts.text.host import EnvInfos, start

    env = start(args.game, EnvInfos(admissible_commands=True, score=True, max_score=True, moves=True))
    agent = _agent(args.mode, env.game, args.seed)
    state = env.reset()
    print(state["feedback"])
    steps = 0
    while not state["done"] and (args.max_steps <= 0 or steps < args.max_steps):
        command = agent(state)
        if command.strip().lower() in ("quit", "exit", "q"):
            break
        if args.mode != "human":
            print(f"> {command}")
        state, _, _ = env.step(command)
        print(state["feedback"])
        steps += 1
    print(f"Done after {state['moves']} moves. Score: {state['score']:g}/{state['max_score']:g}"
          f"{' (won)' if state['won'] else ' (lost)' if state['lost'] else ''}")
    return 0


def _textworld_vocab(game) -> set:
    """The words TextWorld's ``extract_vocab`` finds in a game: those of its logic's Inform 7 strings
    (type kinds and definitions, commands, events, code), its objective and its entities' names and
    descriptions (``[...]`` markup dropped), lower-cased, split at anything but letters, digits,
    ``-``, ``_`` and ``'``, those three stripped from the ends."""
    from jaxlab.levels.text.logic_text import parse_logic

    spec = game.spec
    texts = parse_logic(spec.logic).inform7_text + [spec.objective]
    texts += [n for n in spec.entity_names.values() if n]
    texts += [re.sub(r"\[[^]]*\]", " ", d) for d in spec.entity_desc.values() if d]
    words = re.sub(r"[^a-z0-9\-_ ']", " ", "\n".join(texts).lower()).split()
    return {w.strip("-'_") for w in words}


def _extract(what: str, game) -> Iterable[str]:
    if what == "vocab":
        return sorted(_textworld_vocab(game))
    from jaxlab.hosts.text.host import EnvInfos, game_infos

    if what == "entities":   # TextWorld's: the named entities that are not rooms
        return [name for name, _ in game_infos(game, EnvInfos(typed_entities=True))["typed_entities"]]
    if what == "walkthroughs":
        return [" > ".join(game.walkthrough)] if game.walkthrough else []
    # TextWorld's: every command template over every type-correct entity, admissible now or not
    return game_infos(game, EnvInfos(possible_admissible_commands=True))["possible_admissible_commands"]


def run_extract(args) -> int:
    """Write what was asked for from every game, one item per line, sorted and unique
    (walkthroughs: one line per game, in order)."""
    from jaxlab.hosts.text.game_api import load

    path = args.output or f"{args.what}.txt"
    if os.path.exists(path) and not (args.force or args.merge):
        raise FileExistsError(f"{path} exists (use -f to overwrite or --merge to merge)")
    lines: List[str] = []
    if args.merge and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f if line.strip()]
    for game_path in args.games:
        lines.extend(_extract(args.what, load(game_path)))
    if args.what != "walkthroughs":
        lines = sorted(set(lines))
    with open(path, "w", encoding="utf-8") as f:   # as tw-extract writes: lines joined, no final newline
        f.write("\n".join(lines))
    print(f"Wrote {len(lines)} {args.what} to {path}")
    return 0


RUNNERS: Dict[str, Callable] = {"make": run_make, "play": run_play, "extract": run_extract}


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``jaxlab-tw``; returns the exit status (0 ok, 1 error, 2 usage)."""
    args = build_parser().parse_args(argv)
    try:
        return RUNNERS[args.command](args)
    except (OSError, ValueError, UnknownNameError) as err:
        print(f"jaxlab-tw {args.command}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
