"""How a learner sees each family's env: per-player inputs, flat discrete actions, per-player rewards.

An ``AgentTask`` stands between an Env and a policy network. For one env
(vmapped over the batch) it turns ``(state, TimeStep)`` into the network's
inputs, a dict of arrays with a leading player axis A (A = 1 except on
multi-player grid levels), always holding ``mask`` (bool[A, N]: which of the
N discrete actions may be taken); it turns the players' action indices
(int32[A]) into the env's action, and reads each player's reward
(float32[A]). ``frame`` is what a person would watch (uint8[H, W, 3]).

- ``PixelTask`` (first-person levels): ``pixels`` uint8[1, H, W, 3] from
  ``RGB_INTERLEAVED`` and, when the env was made with DMLab's ``INSTR``
  observation, ``instruction`` int32[1, L] (its token ids, 0 pads; the
  language levels' instruction, all 0 elsewhere); actions index
  ``DiscreteActions`` (DMLab's 9-action set).
- ``GridTask`` (Lab2D-style grid levels): ``layer`` int32[A, H, W, L] state ids
  (``WORLD.LAYER``, the same for every player), ``position`` int32[A, 2]
  (``n.POSITION``: column, row) and ``orientation`` int32[A] (read from the
  state: no Lab2D observation carries it); rewards from ``n.REWARD``. Actions:
  pushbox's ``MOVE`` 0..4, or per player: none, move N/E/S/W (forward/right/
  backward/left on relative levels), turn left, turn right, then one per beam.
- ``TextTask`` (text quests): ``tokens`` int32[1, M] (the env's text
  observations one after another, 0 pads), ``commands`` int32[1, K, C] (the
  words of each command of the episode's game, 0 pads) and ``mask`` from
  ``admissible``; actions are command ids.

``agent_task(env)`` picks the task of an env.
"""
from __future__ import annotations

from typing import Any, Dict, Sequence

import jax.numpy as jnp
import numpy as np

from jaxlab.env import Env
from jaxlab.kernels.grid.env import GridEnv
from jaxlab.kernels.text.env import TEXTS, TextEnv
from jaxlab.render.grid.frames import world_rgb
from jaxlab.types import TimeStep
from jaxlab.wrappers import AutoReset, DiscreteActions

Inputs = Dict[str, jnp.ndarray]
#: DMLab's instruction observation (the language levels'), a learner's ``instruction`` input
INSTRUCTION = "INSTR"


def require_observations(env: Env, needed: Sequence[str]) -> None:
    """Raise ValueError naming the observations of ``needed`` that ``env`` does not compute."""
    missing = [name for name in needed if name not in env.observation_spec()]
    if missing:
        raise ValueError(f"{env!r}: a learner needs the observations {tuple(needed)}; missing {missing}. "
                         f"Make the env with observations={tuple(needed)!r}")


class AgentTask:
    """Base of the family tasks (see the module docstring).

    Attributes: ``kind`` ('pixels', 'grid' or 'text', the network family),
    ``env`` (the AutoReset-wrapped env the learner steps), ``num_agents`` (A)
    and ``num_actions`` (N).
    """

    kind: str = ""
    env: AutoReset
    num_agents: int = 1
    num_actions: int = 0

    def inputs(self, state: Any, ts: TimeStep) -> Inputs:
        """The network inputs of one env: dict name -> array with leading axis A, ``mask`` bool[A, N]."""
        raise NotImplementedError

    def env_action(self, actions: jnp.ndarray) -> Any:
        """The env action for the players' action indices ``actions`` (int32[A])."""
        raise NotImplementedError

    def rewards(self, ts: TimeStep) -> jnp.ndarray:
        """float32[A]: each player's reward of the step that made ``ts``."""
        return ts.reward[None]

    def frame(self, state: Any, inputs: Inputs) -> jnp.ndarray:
        """uint8[H, W, 3]: the picture of one env's ``state`` (with its ``inputs``) a person would watch."""
        raise ValueError(f"{self.kind} tasks have no picture to show")

    def all_actions(self) -> jnp.ndarray:
        """bool[A, N], every action allowed (the mask of families without one)."""
        return jnp.ones((self.num_agents, self.num_actions), bool)


class PixelTask(AgentTask):
    """A first-person env (or any env with ``RGB_INTERLEAVED`` and ``discrete_actions``) seen as pixels,
    with the instruction's tokens when the env computes ``INSTR``.

    Attributes (beyond ``AgentTask``'s): ``frame_shape`` (H, W, 3) and ``vocab_size`` (the number of
    instruction token ids: INSTR's spec's largest id plus one, ``len(VOCABULARY)`` and a compiled level's own
    words; 0 when the env has no ``INSTR``: no ``instruction`` input).
    """

    kind = "pixels"

    def __init__(self, env: Env):
        require_observations(env, ("RGB_INTERLEAVED",))
        indexed = env if isinstance(env, DiscreteActions) else DiscreteActions(env)
        self.env = AutoReset(indexed)
        self.num_actions = indexed.num_actions
        self.frame_shape = tuple(env.observation_spec()["RGB_INTERLEAVED"].shape)
        instruction = env.observation_spec().get(INSTRUCTION)
        self.vocab_size = 0 if instruction is None else int(instruction.maximum) + 1

    def inputs(self, state, ts) -> Inputs:
        """``pixels`` uint8[1, H, W, 3], an all-true ``mask`` bool[1, 9] and, with ``INSTR``, ``instruction``
        int32[1, L] (token ids, 0 pads)."""
        inputs = {"pixels": ts.observation["RGB_INTERLEAVED"][None], "mask": self.all_actions()}
        if self.vocab_size:
            inputs["instruction"] = ts.observation[INSTRUCTION][None]
        return inputs

    def env_action(self, actions):
        """The index of player 1 (``DiscreteActions`` picks the int32[7] row)."""
        return actions[0]

    def frame(self, state, inputs):
        """The agent's own view, uint8[H, W, 3]."""
        return inputs["pixels"][0]


class GridTask(AgentTask):
    """A grid env seen as state ids, with one flat action set per player (shared by every player)."""

    kind = "grid"

    def __init__(self, env: GridEnv):
        players = range(1, env.num_players + 1)
        self.positions = tuple(f"{n}.POSITION" for n in players)
        self.player_rewards = tuple(f"{n}.REWARD" for n in players)
        require_observations(env, ("WORLD.LAYER",) + self.positions + self.player_rewards)
        self.env = AutoReset(env)
        self.world = env.world
        self.num_agents = env.num_players
        self.num_state_ids = len(env.world.state_names)
        self.torus = env.spec.topology == "torus"
        self.table = self._action_table(env)
        self.num_actions = len(next(iter(self.table.values())))

    @staticmethod
    def _action_table(env: GridEnv) -> Dict[str, np.ndarray]:
        """action suffix ('MOVE', or 'move', 'turn', each beam) -> int32[N], the value of each flat action."""
        if "MOVE" in env.action_spec():
            return {"MOVE": np.arange(5, dtype=np.int32)}
        beams = env.world.beam_actions
        n = 7 + len(beams)
        table = {"move": np.zeros(n, np.int32), "turn": np.zeros(n, np.int32)}
        table["move"][1:5] = np.arange(1, 5)
        table["turn"][5:7] = (-1, 1)
        for b, beam in enumerate(beams):
            table[beam] = np.zeros(n, np.int32)
            table[beam][7 + b] = 1
        return table

    def inputs(self, state, ts) -> Inputs:
        """``layer`` int32[A, H, W, L], ``position`` int32[A, 2] (column, row), ``orientation`` int32[A]
        (0 N, 1 E, 2 S, 3 W) and an all-true ``mask`` bool[A, N]."""
        layer = ts.observation["WORLD.LAYER"]
        return {"layer": jnp.broadcast_to(layer, (self.num_agents,) + layer.shape),
                "position": jnp.stack([ts.observation[name] for name in self.positions]),
                "orientation": state.orientation,
                "mask": self.all_actions()}

    def env_action(self, actions):
        """The action dict: ``MOVE`` for pushbox, else ``n.move``, ``n.turn`` and ``n.<beam>`` per player."""
        if "MOVE" in self.table:
            return {"MOVE": jnp.asarray(self.table["MOVE"])[actions[0]]}
        return {f"{p + 1}.{suffix}": jnp.asarray(values)[actions[p]]
                for suffix, values in self.table.items() for p in range(self.num_agents)}

    def rewards(self, ts):
        """float32[A] from ``n.REWARD``."""
        return jnp.stack([ts.observation[name] for name in self.player_rewards])

    def frame(self, state, inputs):
        """``WORLD.RGB`` of ``state``, uint8[H·s, W·s, 3]."""
        return world_rgb(self.world, state.grid)


class TextTask(AgentTask):
    """A text env seen as token bags; actions are command ids, masked by ``admissible``."""

    kind = "text"

    def __init__(self, env: TextEnv):
        self.texts = tuple(name for name in TEXTS if name in env.observation_spec())
        if not self.texts:
            raise ValueError(f"{env!r}: a learner needs a text observation, one of {TEXTS}")
        require_observations(env, self.texts + ("admissible",))
        if env.infos is None:
            raise ValueError(f"{env!r} has no command strings (infos); make it with jaxlab.make('tw-...')")
        self.env = AutoReset(env)
        self.num_actions = env.num_commands
        self.vocab_size = len(env.vocab)
        self.command_tokens = jnp.asarray(self._command_tokens(env))

    @staticmethod
    def _command_tokens(env: TextEnv) -> np.ndarray:
        """int32[G, K, C]: the word ids of each command of each game in the bank (0 pads)."""
        words = [[env.vocab.encode(command) for command in info.commands] for info in env.infos]
        width = max(len(w) for game in words for w in game)
        table = np.zeros((len(words), env.num_commands, width), np.int32)
        for g, game in enumerate(words):
            for k, w in enumerate(game):
                table[g, k, :len(w)] = w
        return table

    def inputs(self, state, ts) -> Inputs:
        """``tokens`` int32[1, M], ``commands`` int32[1, K, C] and ``mask`` bool[1, K] (admissible)."""
        tokens = jnp.concatenate([ts.observation[name] for name in self.texts])
        return {"tokens": tokens[None], "commands": self.command_tokens[state.game_index][None],
                "mask": ts.observation["admissible"][None]}

    def env_action(self, actions):
        """The command id of player 1."""
        return actions[0]


def agent_task(env: Env) -> AgentTask:
    """The AgentTask of ``env``: GridTask for a GridEnv, TextTask for a TextEnv, PixelTask for an env
    with ``RGB_INTERLEAVED`` and discrete actions (first-person levels; the instruction too when the env
    was made with ``INSTR`` among its observations). TypeError otherwise."""
    if isinstance(env, GridEnv):
        return GridTask(env)
    if isinstance(env, TextEnv):
        return TextTask(env)
    if "RGB_INTERLEAVED" in env.observation_spec() and (
            isinstance(env, DiscreteActions) or getattr(env, "discrete_actions", None) is not None):
        return PixelTask(env)
    raise TypeError(f"no learner for {env!r}: jaxlab.agents trains grid levels, text quests and envs with "
                    f"RGB_INTERLEAVED and discrete_actions (first-person levels)")
