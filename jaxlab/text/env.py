"""TextEnv: a bank of text games behind the jaxlab Env API.

Actions are command ids (int32[], an index into the episode's game command
table, ``infos[game_index].commands``). Observations:

- ``admissible``: bool[K], the admissible-command mask;
- ``score``, ``max_score``: float32[]; ``won``, ``lost``: bool[];
- ``moves``: int32[], the commands that were applied;
- ``game_index``: int32[], the episode's game in the bank.

The reward is the score change. An episode terminates when the game is won
or lost and is truncated after ``max_steps`` commands (if given).
"""
from __future__ import annotations

from typing import Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.env import Env
from jaxlab.text import kernel
from jaxlab.text.game import GameInfo, TextGame, bank_size, get_game, stack_games
from jaxlab.types import ArraySpec, DiscreteArraySpec

OBSERVATIONS = ("admissible", "score", "max_score", "won", "lost", "moves", "game_index")


class TextEnv(Env):
    """Text games (a bank; each episode plays one) with TextWorld's rules.

    Args:
      games: one TextGame, a bank (``game.stack_games``) or a sequence of TextGames.
      infos: optional GameInfo per game (host-side command strings).
      name: a name for repr.
      max_steps: optional episode length in commands (truncation).
    """

    def __init__(self, games: Union[TextGame, Sequence[TextGame]], infos: Optional[Sequence[GameInfo]] = None,
                 name: str = "", max_steps: Optional[int] = None):
        if isinstance(games, TextGame):
            bank = games if np.ndim(games.init_facts) == 2 else stack_games([games])
        else:
            bank = stack_games(list(games))
        self.bank = bank
        self.infos = tuple(infos) if infos is not None else None
        if self.infos is not None and len(self.infos) != bank_size(bank):
            raise ValueError(f"{len(self.infos)} infos for {bank_size(bank)} games")
        if max_steps is not None and int(max_steps) < 1:
            raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
        self.max_steps = None if max_steps is None else int(max_steps)
        self.name = name

    @property
    def num_games(self) -> int:
        """Number of games in the bank."""
        return bank_size(self.bank)

    @property
    def num_commands(self) -> int:
        """K, the (padded) command-table size shared by the bank."""
        return int(self.bank.cmd_valid.shape[-1])

    def game(self, state: kernel.TextState) -> TextGame:
        """The TextGame of ``state``'s episode."""
        return get_game(self.bank, state.game_index)

    def init_state(self, key: jax.Array, game_index=None) -> kernel.TextState:
        """A new episode: game ``game_index`` (int32[]) or one drawn uniformly with ``key``."""
        k_game, k_episode = jax.random.split(key)
        if game_index is None:
            game_index = jax.random.randint(k_game, (), 0, self.num_games)
        game_index = jnp.asarray(game_index, jnp.int32)
        return kernel.initial_state(get_game(self.bank, game_index), k_episode, game_index)

    def advance(self, state: kernel.TextState, action):
        """Play command id ``action`` (int32[]); returns (state, reward, terminated, truncated).

        After the episode has ended the state no longer changes (reward 0).
        """
        stepped, reward = kernel.step(self.game(state), state, action)
        ended = state.done
        new = jax.tree_util.tree_map(lambda a, b: jnp.where(ended, b, a), stepped, state)
        reward = jnp.where(ended, 0.0, reward).astype(jnp.float32)
        terminated = new.won | new.lost
        truncated = jnp.bool_(False)
        if self.max_steps is not None:
            truncated = ~terminated & (new.steps >= self.max_steps)
        return new.replace(done=terminated | truncated), reward, terminated, truncated

    def observe(self, state: kernel.TextState):
        """dict of the observations listed in the module docstring."""
        game = self.game(state)
        return {"admissible": kernel.admissible(game, state.facts), "score": state.score,
                "max_score": game.max_score, "won": state.won, "lost": state.lost, "moves": state.moves,
                "game_index": state.game_index}

    def observation_spec(self):
        """dict name -> ArraySpec."""
        scalar = {"score": np.float32, "max_score": np.float32, "won": np.bool_, "lost": np.bool_,
                  "moves": np.int32, "game_index": np.int32}
        specs = {"admissible": ArraySpec((self.num_commands,), np.bool_, "admissible")}
        specs.update({n: ArraySpec((), t, n) for n, t in scalar.items()})
        return specs

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
