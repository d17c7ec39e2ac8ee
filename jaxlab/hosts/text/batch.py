"""A batch of text games played from the host, in the shape of TextWorld's gym batch env.

    env = jaxlab.text.BatchEnv(["a.json", "b.json"], infos, batch_size=32, auto_reset=True)
    obs, infos = env.reset()                      # lists of length batch_size
    obs, scores, dones, infos = env.step(commands)

All games of the pool share one padded bank, and every slot steps in one
jitted, vmapped call; only the text parsing and decoding run per slot on the
host. Each slot plays the games of the pool in turn (slot i starts with game
``i % len(pool)``), as TextWorld cycles through its pool.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.bank import Bank
from jaxlab.hosts.text.game_api import Game, game_or_load
from jaxlab.hosts.text.host import (EnvInfos, checked_command, checked_infos, game_infos, location, observation_names,
                                    true_facts)
from jaxlab.hosts.text.parser import CommandParser
from jaxlab.kernels.text.env import TextEnv


class BatchEnv:
    """``batch_size`` text games stepped together.

    Args:
      games: the pool: Games or paths of ``.json`` games.
      infos: EnvInfos; ``admissible_commands``, ``score``, ``won``, ``lost``,
        ``moves``, ``description``, ``inventory``, ``policy_commands``,
        ``intermediate_reward``, ``last_command``, the game's own infos
        (``host.game_infos``: ``max_score``, ``objective``, ``entities``, ...)
        and ``extras`` are reported per slot.
      batch_size: number of games played at once.
      auto_reset: a finished slot starts again on the following ``step``: its next game (``cycle``)
        or the same game (``cycle=False``, as TextWorld's gym env); otherwise it stays finished
        (its commands change nothing).
      max_episode_steps: commands per game before it is done (truncation).
      seed: seeds the slots' keys.
      cycle: where a slot goes on ``auto_reset`` (above).
    """

    def __init__(self, games: Sequence[Union[Game, str]], infos: Optional[EnvInfos] = None, batch_size: int = 1,
                 auto_reset: bool = False, max_episode_steps: Optional[int] = None, seed: int = 0,
                 cycle: bool = True):
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.pool = [game_or_load(g, f"BatchEnv: games[{i}]") for i, g in enumerate(games)]
        if not self.pool:
            raise ValueError("BatchEnv needs at least one game")
        self.infos = checked_infos(infos, "BatchEnv: infos")
        self.batch_size, self.auto_reset, self.cycle = int(batch_size), bool(auto_reset), bool(cycle)
        self.env = TextEnv(Bank.stack([g.game for g in self.pool]), [g.info for g in self.pool], name="batch",
                           max_steps=max_episode_steps, observations=observation_names(self.infos), text_length=None)
        self.parsers = [CommandParser(g.info.commands) for g in self.pool]
        env = self.env
        self._init = jax.jit(jax.vmap(env.init_state))
        self._observe = jax.jit(jax.vmap(env.observe))
        self._advance = jax.jit(jax.vmap(env.advance))
        self._key = jax.random.PRNGKey(seed)
        self._next_game = np.arange(self.batch_size) % len(self.pool)
        self._states = None
        self._last: List[Optional[str]] = [None] * self.batch_size

    def _fresh(self, count_mask: np.ndarray, games: Optional[np.ndarray] = None):
        """Initial states for the slots in ``count_mask`` (others: dummies) playing ``games`` (pool
        indices per slot; default: each slot's next game, which then advances)."""
        self._key, key = jax.random.split(self._key)
        if games is None:
            games = self._next_game.copy()
            self._next_game = np.where(count_mask, (self._next_game + self.batch_size) % len(self.pool),
                                       self._next_game)
        return self._init(jax.random.split(key, self.batch_size), jnp.asarray(games, jnp.int32))

    def reset(self, games: Optional[Sequence[int]] = None):
        """Start a game in every slot: ``(observations, infos)`` (lists over the batch, infos a dict of lists).
        ``games``: the pool index each slot plays (default: each slot's next game)."""
        if games is not None:
            games = np.asarray(games, np.int64)
            if games.shape != (self.batch_size,) or games.min() < 0 or games.max() >= len(self.pool):
                raise ValueError(f"reset: expected {self.batch_size} pool indices in [0, {len(self.pool)}), "
                                 f"got {games.tolist()}")
        self._states = self._fresh(np.ones(self.batch_size, bool), games)
        self._actions: List[Optional[str]] = [None] * self.batch_size
        self._last = [None] * self.batch_size
        self._done = np.zeros(self.batch_size, bool)
        feedback, _, _, info = self._report()
        return feedback, info

    def step(self, commands: Sequence[str]):
        """Play one command per slot: ``(observations, scores, dones, infos)``."""
        if self._states is None:
            raise RuntimeError("call reset() before step()")
        if not isinstance(commands, (list, tuple)):
            raise TypeError(f"BatchEnv.step: expected a list of {self.batch_size} command strings, "
                            f"got {type(commands).__name__}")
        if len(commands) != self.batch_size:
            raise ValueError(f"expected {self.batch_size} commands, got {len(commands)}")
        commands = [checked_command(c, f"BatchEnv.step: command {i}") for i, c in enumerate(commands)]
        games = np.asarray(self._states.game_index)
        ids = np.array([self.parsers[g].parse(c) for g, c in zip(games, commands)], np.int32)
        applied = [i >= 0 and bool(adm[i]) and not done for i, adm, done in zip(ids, self._admissible, self._done)]
        self._actions = [self.pool[g].info.commands[i] if ok else None for g, i, ok in zip(games, ids, applied)]
        states, _, terminated, truncated = self._advance(self._states, jnp.asarray(ids))
        if self.auto_reset and self._done.any():
            fresh = self._fresh(self._done, None if self.cycle else np.asarray(self._states.game_index))
            states = jax.tree_util.tree_map(
                lambda f, s: jnp.where(jnp.asarray(self._done).reshape((-1,) + (1,) * (s.ndim - 1)), f, s),
                fresh, states)
        self._states = states
        self._done = np.asarray(states.done)
        self._last = [c.strip() for c in commands]
        return self._report()

    def _report(self):
        obs = jax.device_get(self._observe(self._states))
        games = np.asarray(self._states.game_index)
        feedback = [self.env.decode(t) for t in obs["feedback"]]
        scores = [float(s) for s in obs["score"]]
        dones = [bool(d) for d in np.asarray(self._states.done)]
        self._admissible = np.asarray(obs["admissible"])
        info: Dict[str, list] = {}
        asked = self.infos
        if asked.admissible_commands:
            info["admissible_commands"] = [
                [c for c, ok in zip(self.pool[g].info.commands, adm) if ok] for g, adm in zip(games, obs["admissible"])]
        for name in ("score", "won", "lost", "moves"):
            if getattr(asked, name):
                cast = float if name == "score" else (int if name == "moves" else bool)
                info[name] = [cast(v) for v in obs[name]]
        for name in ("description", "inventory"):
            if getattr(asked, name):
                info[name] = [self.env.decode(t) for t in obs[name]]
        if asked.policy_commands:
            info["policy_commands"] = [[self.pool[g].info.commands[i] for i in pol if i >= 0]
                                       for g, pol in zip(games, obs["policy"])]
        if asked.intermediate_reward:
            info["intermediate_reward"] = [float(r) for r in obs["intermediate_reward"]]
        if asked.last_command:
            info["last_command"] = list(self._last)
        if asked.last_action:
            info["last_action"] = list(self._actions)
        if asked.facts or asked.location:
            facts = [true_facts(self.pool[g], truth) for g, truth in zip(games, np.asarray(self._states.facts))]
            if asked.facts:
                info["facts"] = facts
            if asked.location:
                info["location"] = [location(self.pool[g], f) for g, f in zip(games, facts)]
        per_slot = [game_infos(self.pool[g], asked) for g in games]
        for name in (per_slot[0] if per_slot else {}):
            info[name] = [slot[name] for slot in per_slot]
        return feedback, scores, dones, info
