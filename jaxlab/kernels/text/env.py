"""TextEnv: a bank of text games behind the jaxlab Env API.

Actions are command ids (int32[], an index into the episode's game command
table, ``infos[game_index].commands``). Observations (only those named in
``observations`` are computed):

- ``feedback``: int32[T], the text after the last command (after reset: the
  objective and the room), as token ids of ``env.vocab`` (0 pads; see
  ``narration``); ``env.decode(tokens)`` makes it a string;
- ``description``: int32[T], what ``look`` would say now (the room);
- ``inventory``: int32[T], what ``inventory`` would say now;
- ``admissible``: bool[K], the admissible-command mask;
- ``score``, ``max_score``: float32[]; ``won``, ``lost``: bool[];
- ``moves``: int32[], the commands that were applied;
- ``game_index``: int32[], the episode's game in the bank;
- ``policy``: int32[L], the command ids of the winning policy, the next
  first (-1 pads; all -1 once the game is won or lost), TextWorld's
  ``policy_commands`` (see ``policy``);
- ``intermediate_reward``: float32[], TextWorld's: +1 when won, -1 when
  lost, else the sign of how much the last command shortened the policy.

The winning policy is followed step by step only by an env that observes
``policy`` or ``intermediate_reward`` (it costs about as much as the rest of
the kernel's bookkeeping); in another env ``state.policy`` stays the start's.

``env.vocab`` is the bank's :class:`~jaxlab.levels.text.vocab.Vocab`. The reward
is the score change. An episode terminates when the game is won or lost and
is truncated after ``max_steps`` commands (if given).
"""
from __future__ import annotations

from typing import Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.bank import Bank
from jaxlab.env import Env, select_tree
from jaxlab.errors import unknown_name_error
from jaxlab.kernels.text import command_masks, kernel, policy
from jaxlab.levels.text.compiled_game import GameInfo, GameRows, TextGame
from jaxlab.levels.text.tables import share_vocab
from jaxlab.levels.text.vocab import Vocab
from jaxlab.render.text import narration
from jaxlab.settings import check_settings
from jaxlab.types import ArraySpec, DiscreteArraySpec

TEXTS = ("feedback", "description", "inventory")
OBSERVATIONS = TEXTS + ("admissible", "score", "max_score", "won", "lost", "moves", "game_index", "policy",
                        "intermediate_reward")
DEFAULT_OBSERVATIONS = ("feedback", "admissible", "score", "max_score", "won", "lost", "moves", "game_index")
_SCALARS = {"score": np.float32, "max_score": np.float32, "won": np.bool_, "lost": np.bool_, "moves": np.int32,
            "game_index": np.int32, "intermediate_reward": np.float32}


class TextEnv(Env):
    """Text games (a bank; each episode plays one) with TextWorld's rules.

    Args:
      games: a ``Bank`` of N TextGames (``Bank.stack``; ``bank.levels``
        arrays have a leading axis N).
      infos: optional GameInfo per game (N; host-side command strings and
        the words of each game's text); games whose words differ are given
        one vocabulary (``tables.share_vocab``). Without infos the
        vocabulary is the shipped words only.
      name: a name for repr.
      max_steps: optional episode length in commands (truncation), an int in [1, 2**31 - 1].
      observations: the observation names to compute (see the module docstring).
      text_length: T, the tokens of each text observation (longer texts are cut
        at the last whole segment that fits), an int in [1, 65536]; None: the longest
        text the bank can say (``narration.longest_text``), so none is cut (the host APIs' choice).

    ``max_steps`` and ``text_length`` are checked as ``jaxlab.make`` checks them
    (:func:`jaxlab.settings.check_settings`): TypeError for a non-integer, ValueError out of range.
    """

    def __init__(self, games: Bank, infos: Optional[Sequence[GameInfo]] = None,
                 name: str = "", max_steps: Optional[int] = None,
                 observations: Sequence[str] = DEFAULT_OBSERVATIONS, text_length: Optional[int] = 256):
        if not isinstance(games, Bank) or not isinstance(games.levels, TextGame):
            raise TypeError(f"games must be a Bank of TextGames (jaxlab.Bank.stack(games)), "
                            f"got {type(games).__name__}")
        given = {"max_steps": max_steps, "text_length": text_length}
        counts = check_settings("TextEnv", {k: v for k, v in given.items() if v is not None})
        self.infos = tuple(infos) if infos is not None else None
        if self.infos is not None and len(self.infos) != games.size:
            raise ValueError(f"{len(self.infos)} infos for {games.size} games")
        if self.infos is not None and len({i.words for i in self.infos}) > 1:
            shared, self.infos, _ = share_vocab([games.get(b) for b in range(games.size)], self.infos)
            games = Bank.stack(shared)
        self.bank = games
        self._span_width = kernel.widest_span(games.levels)
        self._irreversible = kernel.has_irreversible(games.levels)
        masks = command_masks.command_masks(games.levels)
        self._masks = None if masks is None else Bank(masks)
        self._widths = narration.text_widths(games.levels)
        self.vocab = Vocab(self.infos[0].words if self.infos else ())
        self.max_steps = counts.get("max_steps")
        self.observations = (observations,) if isinstance(observations, str) else tuple(observations)
        for obs in self.observations:
            if obs not in OBSERVATIONS:
                raise unknown_name_error("observation", obs, OBSERVATIONS)
        # None: the longest text the bank can say, so that no text is ever cut
        self.text_length = counts.get("text_length", self._widths.feedback_tokens)
        # the winning policy is followed only for an env that observes it or its intermediate reward
        self._track_policy = bool({"policy", "intermediate_reward"} & set(self.observations))
        self.name = name

    @property
    def num_games(self) -> int:
        """Number of games in the bank."""
        return self.bank.size

    @property
    def num_commands(self) -> int:
        """K, the (padded) command-table size shared by the bank."""
        return self.bank.levels.num_commands

    def game(self, state: kernel.TextState) -> TextGame:
        """The TextGame of ``state``'s episode."""
        return self.bank.get(state.game_index)

    def init_state(self, key: jax.Array, game_index=None) -> kernel.TextState:
        """A new episode: game ``game_index`` (int32[]) or one drawn uniformly with ``key``."""
        k_game, k_episode = jax.random.split(key)
        if game_index is None:
            game_index = self.bank.sample_index(k_game)
        game_index = jnp.asarray(game_index, jnp.int32)
        return kernel.initial_state(GameRows(self.bank, game_index), k_episode, game_index)

    def advance(self, state: kernel.TextState, action):
        """Play command id ``action`` (int32[]); returns (state, reward, terminated, truncated).

        After the episode has ended the state no longer changes (reward 0).
        """
        stepped, reward = kernel.step(GameRows(self.bank, state.game_index), state, action, self._span_width,
                                      track_policy=self._track_policy, irreversible=self._irreversible)
        ended = state.done
        new = select_tree(ended, state, stepped)
        reward = jnp.where(ended, 0.0, reward).astype(jnp.float32)
        terminated = new.won | new.lost
        truncated = jnp.bool_(False)
        if self.max_steps is not None:
            truncated = ~terminated & (new.steps >= self.max_steps)
        return new.replace(done=terminated | truncated), reward, terminated, truncated

    def observe(self, state: kernel.TextState):
        """dict of the requested observations (see the module docstring)."""
        rows, t = GameRows(self.bank, state.game_index), self.text_length
        w = self._widths
        make = {"feedback": lambda: narration.feedback(rows, state, t, w),
                "description": lambda: narration.description(rows, state.facts, t, w),
                "inventory": lambda: narration.inventory(rows, state.facts, t, w),
                "admissible": lambda: self._admissible(rows, state), "max_score": lambda: rows.max_score[...],
                "score": lambda: state.score, "won": lambda: state.won, "lost": lambda: state.lost,
                "moves": lambda: state.moves, "game_index": lambda: state.game_index,
                "policy": lambda: jnp.where(state.won | state.lost, -1, policy.commands(rows, state.policy)),
                "intermediate_reward": lambda: state.intermediate_reward}
        return {name: make[name]() for name in self.observations}

    def _admissible(self, rows: GameRows, state: kernel.TextState) -> jnp.ndarray:
        if self._masks is None:  # a command with more than 32 actions in a window
            return kernel.admissible(rows, state.facts)
        return command_masks.admissible(GameRows(self._masks, state.game_index), state.facts)

    def observation_spec(self):
        """dict name -> ArraySpec of the requested observations."""
        specs = {n: ArraySpec((self.text_length,), np.int32, n) for n in TEXTS}
        specs["admissible"] = ArraySpec((self.num_commands,), np.bool_, "admissible")
        specs["policy"] = ArraySpec(self.bank.levels.pol_init.shape[-1:], np.int32, "policy")
        specs.update({n: ArraySpec((), t, n) for n, t in _SCALARS.items()})
        return {n: specs[n] for n in self.observations}

    def decode(self, tokens) -> Union[str, list]:
        """Host: the text of token ids (int32[T]; a list of strings for int32[..., T])."""
        tokens = np.asarray(tokens)
        if tokens.ndim > 1:
            return [self.decode(t) for t in tokens]
        return self.vocab.decode(tokens)

    def action_spec(self) -> DiscreteArraySpec:
        """DiscreteArraySpec: a command id in [0, K); ids of padding commands are never admissible."""
        k = self.num_commands
        return DiscreteArraySpec(shape=(), dtype=np.int32, name="command", minimum=0, maximum=k - 1, num_values=k)

    def command_id(self, game_index: int, command: str) -> int:
        """Host: the id of ``command`` in game ``game_index``'s table (-1 if absent); needs ``infos``."""
        return self._info(game_index).command_id(command)

    def command_text(self, game_index: int, command_id: int) -> str:
        """Host: the text of command ``command_id`` of game ``game_index``; needs ``infos``."""
        return self._info(game_index).commands[int(command_id)]

    def _info(self, game_index: int) -> GameInfo:
        if self.infos is None:
            raise ValueError("this TextEnv was made without infos (host-side command strings)")
        return self.infos[int(game_index)]
