"""Shared by the text tests that play games in the ``textworld`` package too: TextWorld's engine as it
plays a game, TextWorld's challenge games generated without compiling them, and the step-by-step comparison of
TextWorld's episodes with jaxlab's batched play of the same commands."""
from __future__ import annotations

import functools
from unittest import mock

import jax
import numpy as np
import textworld
from textworld.challenges import CHALLENGES
from textworld.envs.tw import TextWorldEnv
from textworld.generator.data import KnowledgeBase
from textworld.generator.game import GameOptions, GameProgression
from textworld.generator.inform7 import Inform7Game

from text_play import assert_same_facts, play

INFOS = dict(admissible_commands=True, score=True, max_score=True, won=True, lost=True, moves=True)


def as_played(actions, texts) -> dict:
    """{command: the action TextWorld plays for it}: among ``actions`` whose text (``texts``, in the
    same order) is the command, the first with the most preconditions (``Inform7Game.detect_action``).

    Where TextWorld's own choice depends on the hash order of Python's sets, so differs between runs,
    the lowest-named entities are taken, as jaxlab does: one rule whose postconditions name a
    placeholder that no precondition binds is instantiated once for every entity of its type, in
    set order (tw-cooking's drop logic has one: its ``make/recipe/4`` frees a slot it never binds).
    """
    best = {}
    for action, text in zip(actions, texts):
        other = best.get(text)
        if other is None or len(action.preconditions) > len(other.preconditions) or (
                len(action.preconditions) == len(other.preconditions) and action.name == other.name
                and _bound(action) < _bound(other)):
            best[text] = action
    return best


def _bound(action):
    """The entity names an action binds, in the order of its placeholders' names."""
    return tuple(v.name for _, v in sorted(action.mapping.items(), key=lambda item: item[0].name))


class TextWorldAsPlayed(TextWorldEnv):
    """TextWorld's engine for a game's JSON, answering a command as TextWorld plays the compiled game.

    When several valid actions answer one command (tw-cooking's ``prepare meal``: make/recipe/1 to
    make/recipe/N for a recipe of N ingredients), TextWorld's Inform7 tracker takes the one with the
    most preconditions (``Inform7Game.detect_action``), which uses every ingredient; the bare JSON
    engine takes the first it lists. ``test_the_reference_plays_as_the_compiled_game`` checks this
    against compiled games.
    """

    def _gather_infos(self):
        super()._gather_infos()
        actions, texts = self.state["_valid_actions"], self.state["_valid_commands"]
        # ``step`` plays the action at the first position of the command's text
        best = as_played(actions, texts)
        self.state["_valid_commands"] = [text if best[text] is action else None for action, text in zip(actions, texts)]


def _set_walkthrough_without_compiling(maker, commands):
    """``GameMaker.set_walkthrough`` without Inform7: play ``commands`` in TextWorld's logic, each as
    the compiled game would take it (``as_played``), and give each winning event the actions
    and commands played until it was triggered. A command no action answers (tw-cooking's walkthroughs
    open doors that are open) changes nothing and, as TextWorld's tracker records it, repeats the
    last action played."""
    game = maker.build()
    progression, inform7 = GameProgression(game), Inform7Game(game)
    events = {event: event.copy() for quest in maker.quests for event in quest.win_events}
    watched = [ep for qp in progression.quest_progressions for ep in qp.win_events]
    actions = []
    for i, command in enumerate(commands):
        if progression.done:
            raise ValueError("Game has ended before finishing playing all commands.")
        before = [ep.triggered for ep in watched]
        valid = progression.valid_actions
        action = as_played(valid, inform7.gen_commands_from_actions(valid)).get(command)
        if action is not None:
            progression.update(action)
        actions.append(action if action is not None else (actions[-1] if actions else None))
        for was, ep in zip(before, watched):
            if not was and ep.triggered:
                events[ep.event].actions, events[ep.event].commands = list(actions), commands[:i + 1]
    for event, played in events.items():
        event.actions, event.commands = played.actions, played.commands


@functools.lru_cache(maxsize=None)
def _knowledge_base(target_dir=None, logic_path=None, grammar_path=None):
    return _load_knowledge_base(target_dir, logic_path, grammar_path)


_load_knowledge_base = KnowledgeBase.load


def make_challenge_game(challenge: str, settings: dict, seed: int, quick: bool = True):
    """A ``textworld.Game`` from TextWorld's own generator for ``challenge`` (``tw-cooking``,
    ``tw-coin_collector``, ...) with ``settings`` and ``seed``.

    TextWorld parses its logic and grammar files for every game, and for some challenges compiles the
    game with Inform7 to give its quests the walkthrough's actions (together about a second a game).
    ``quick`` parses them once and does the same in TextWorld's logic without compiling
    (``test_quick_games_are_textworld_s`` checks the games are the same).
    Raises TextWorld's ValueError for the few seeds its generator cannot use.
    """
    options = GameOptions()
    options.seeds = seed
    make = CHALLENGES[challenge][1]
    if not quick:
        return make(settings=settings, options=options)
    with mock.patch.object(textworld.GameMaker, "set_walkthrough", _set_walkthrough_without_compiling), \
            mock.patch.object(KnowledgeBase, "load", _knowledge_base):
        return make(settings=settings, options=options)


@functools.lru_cache(maxsize=4)
def _loaded(path: str) -> "TextWorldAsPlayed":
    """A TextWorldAsPlayed with the game at ``path`` loaded, kept for the game's next episodes (``reset``
    starts a new game progression, so an episode begins the same whatever was played before)."""
    env = TextWorldAsPlayed(textworld.EnvInfos(**INFOS))
    env.load(path)
    return env


def textworld_episode(path, commands=None, steps=0, seed=0, invalid_ids=None):
    """Play in TextWorld: the given commands, or a random walk of ``steps``.

    Returns (commands played, per-step records [reset, after each command]): admissible commands,
    score, won, lost, moves and the true facts (``(predicate, entity ids)``).
    A random walk plays an admissible command, or 1 time in 8 an inadmissible
    one (``invalid_ids`` gives jaxlab's command strings to draw from).
    """
    env = _loaded(str(path))
    state = env.reset()
    rng = np.random.default_rng(seed)

    def record(state):
        # TextWorld reports no score at reset; read the progression's.
        score = state["score"] if state.get("score") is not None else env._game_progression.score
        facts = frozenset((f.name, tuple(v.name for v in f.arguments)) for f in state["_facts"])
        return (frozenset(state["admissible_commands"]), float(score), bool(state["won"]), bool(state["lost"]),
                int(state["moves"]), facts)

    records, played = [record(state)], []
    for i in range(len(commands) if commands is not None else steps):
        if commands is not None:
            command = commands[i]
        elif rng.random() < 0.125:
            others = [c for c in invalid_ids if c not in state["admissible_commands"]] or ["dance"]
            command = others[rng.integers(len(others))]
        else:
            command = state["admissible_commands"][rng.integers(len(state["admissible_commands"]))]
        state, _, _ = env.step(command)
        played.append(command)
        records.append(record(state))
    return played, records


def assert_plays_alike(bank, infos, names, episodes) -> dict:
    """Play every TextWorld episode in jaxlab, all in one jitted batch, and compare every step.

    ``episodes``: [(game index into ``bank``/``infos``/``names``, kind, commands played, TextWorld's
    records from ``textworld_episode``)]. At every step the admissible commands, score, won, lost,
    moves and facts must agree, and each reward must be the change of TextWorld's score. Returns
    jaxlab's per-step records (``text_play.play``) for further checks.
    """
    ids = np.full((len(episodes), max(len(e[2]) for e in episodes)), -1, np.int32)
    for row, (g, _, played, _) in enumerate(episodes):
        ids[row, :len(played)] = [infos[g].command_id(c) for c in played]
    out = jax.device_get(play(bank, np.array([e[0] for e in episodes], np.int32), ids))
    adm, score, won, lost, moves, reward, facts = (
        out[k] for k in ("admissible", "score", "won", "lost", "moves", "reward", "facts"))
    for row, (g, kind, played, records) in enumerate(episodes):
        commands = np.array(infos[g].commands)
        for t, (tw_adm, tw_score, tw_won, tw_lost, tw_moves, tw_facts) in enumerate(records):
            where = f"{names[g]} {kind} step {t} ({played[t - 1] if t else 'reset'!r})"
            mine = set(commands[adm[row, t, :len(commands)]].tolist())
            assert mine == set(tw_adm), (where, sorted(mine - tw_adm), sorted(tw_adm - mine))
            assert_same_facts(infos[g], facts[row, t], records[0][5], tw_facts, where)
            mine = (score[row, t], won[row, t], lost[row, t], moves[row, t])
            assert mine == (tw_score, tw_won, tw_lost, tw_moves), (where, mine, (tw_score, tw_won, tw_lost, tw_moves))
            if t:
                assert reward[row, t] == tw_score - records[t - 1][1], where
    return out
