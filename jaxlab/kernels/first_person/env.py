"""FirstPersonEnv: DMLab-style first-person levels behind the jaxlab Env API."""
from __future__ import annotations

import functools
from typing import Mapping, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.bank import Bank
from jaxlab.env import Env, select_tree, where_rows
from jaxlab.kernels.first_person.arena import has_bots
from jaxlab.kernels.first_person.bots import choose_for
from jaxlab.kernels.first_person.frame import guarded_frame, new_episode
from jaxlab.kernels.first_person.observations import (PLAYER_REWARD, as_player, custom_specs, custom_view, observe,
                                                      per_player, player_reward, player_specs)
from jaxlab.kernels.first_person.script import (ScriptHooks, script_custom_actions, script_observations,
                                                script_screen)
from jaxlab.kernels.first_person.state import WorldState
from jaxlab.levels.dmlab import actions
from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.instructions import check_tokens, decode as decode_instruction
from jaxlab.levels.dmlab.language_objects import FIRST_LANGUAGE_KIND
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.units import DEFAULT_FPS
from jaxlab.settings import positive_setting


def _kept(_level, _key, _level_index, next_level) -> Level:
    """The map drawn ahead, kept (no restart this agent step)."""
    return next_level


class FirstPersonEnv(Env):
    """A bank of first-person levels with DMLab's actions, observations and timing.

    Args:
      bank: a ``Bank`` of first-person ``Level``s (``Bank.stack``); each episode samples one.
      generator: instead of a bank, a ``LevelGenerator`` (``jaxlab.levels.dmlab.generator``)
        that draws each episode's Level on device inside ``reset`` (and may
        re-draw parts of it at every map restart); the Level rides in the
        state (``WorldState.episode_level``).
      name: the level name.
      width, height: frame size in pixels (DMLab's default 320×240).
      observations: observation names (see ``world.observations``), and
        names of the bank's custom observations (``Level.custom_obs``).
      action_repeat: frames per agent step (DMLab's ``num_steps``); rewards
        are summed and the frame is rendered once, after the last.
      fps: frames per second of game time.
      episode_length_seconds: overrides the level's episode length.
      script: the bank's compiled play-time callbacks (``kernels.first_person.script.ScriptHooks``;
        a DMLab script whose callbacks keep state), or None.
      episode_events: per bank level, the events its script's callbacks raised when it was
        compiled (``meta["events"]``: [name, [observation, ...]] each): host data that
        ``jaxlab.Lab.events()`` gives after ``reset``; the kernels do not read it.
      instruction_words: the bank's own instruction words (a compiled script's ``meta["instruction_words"]``,
        ``levels.dmlab.instructions.level_words``): INSTR token ids past ``VOCABULARY``'s; ``decode`` reads them
        and INSTR's spec is bounded by the largest id.
      players: in a level with bots (laser tag), how many players learning agents play (self-play),
        the agent first; the rest stay bots. With ``players`` N > 1 the action is int32[N, 7] (row n - 1
        player n's) and observation names take the player as a prefix, as the grid family's do:
        ``"2.RGB_INTERLEAVED"``, ``"2.REWARD"`` (that player's score change in the step); the
        TimeStep's reward is player 1's.
    """

    def __init__(self, bank: Optional[Bank] = None, name: str = "", width: int = 320, height: int = 240,
                 observations: Sequence[str] = ("RGB_INTERLEAVED",), action_repeat: int = 1,
                 fps: int = DEFAULT_FPS, episode_length_seconds: Optional[float] = None,
                 generator: Optional[LevelGenerator] = None, script: Optional[ScriptHooks] = None,
                 episode_events: Sequence = (), players: int = 1, instruction_words: Sequence[str] = ()):
        if (bank is None) == (generator is None):
            raise ValueError("FirstPersonEnv takes either a bank of levels or a level generator")
        if script is not None and bank is None:
            raise ValueError("compiled script callbacks come with a bank of compiled levels, not a generator")
        self.name = name
        self.generator = generator
        self.script = script
        #: the level script's custom discrete actions, ``(name, min, max)`` each (appended to the action)
        self.custom_actions = () if script is None else tuple(script.custom_actions)
        self.episode_events = tuple(episode_events)
        self.instruction_words = tuple(instruction_words)
        self.width = positive_setting("width", 1, width)
        self.height = positive_setting("height", 1, height)
        self.action_repeat = positive_setting("action_repeat", 1, action_repeat)
        self.fps = positive_setting("fps", 1, fps)
        if isinstance(observations, str):
            observations = (observations,)
        self.observations = tuple(observations)
        levels = bank.levels if generator is None else generator.level_shapes()
        self.players = positive_setting("players", 1, players)
        if self.players > 1 and self.custom_actions:
            raise ValueError(f"{name or 'this level'}: players={self.players} with a level script's custom actions "
                             f"({', '.join(a[0] for a in self.custom_actions)}); custom actions are the agent's alone")
        if self.players > 1 and levels.bot_valid.shape[-1] < self.players - 1:
            raise ValueError(f"{name or 'this level'}: players={self.players} needs a level with at least "
                             f"{self.players - 1} other players (bots); it has {levels.bot_valid.shape[-1]}")
        self._specs = player_specs(self.observations, self.players, self.width, self.height, custom_specs(levels),
                                   self.instruction_words)
        if bank is not None and not isinstance(bank.levels.instr, jax.core.Tracer):
            check_tokens(bank.levels.instr, self.instruction_words, f"{name or 'the bank'}: Level.instr")
        self._episode_seconds = None
        if episode_length_seconds is not None:
            self._episode_seconds = positive_setting("episode_length_seconds", 0.0, episode_length_seconds)
            if bank is not None:
                bank = Bank(bank.levels.replace(
                    episode_seconds=jnp.full_like(bank.levels.episode_seconds, self._episode_seconds)))
        self.bank = bank
        # static: draw the language objects' silhouettes only where a level may hold one (a bank seen only
        # as traced arrays, inside a jitted host call, may)
        kinds = None if generator is not None else bank.levels.pickup_kind
        self._masks = (generator.language_objects if generator is not None else
                       isinstance(kinds, jax.core.Tracer) or bool(np.any(np.asarray(kinds) >= FIRST_LANGUAGE_KIND)))

    @property
    def num_levels(self) -> int:
        """Number of levels: the bank's size, or the generator's number of level kinds (a suite's)."""
        return self.bank.size if self.generator is None else self.generator.num_levels

    def level(self, state: WorldState) -> Level:
        """The Level of ``state``'s episode."""
        if self.generator is not None:
            return state.episode_level
        return self.bank.get(state.level_index)

    def episode_frames(self, level: Level) -> jnp.ndarray:
        """int32[]: the episode length of ``level`` in frames (``episode_length_seconds`` if set)."""
        seconds = level.episode_seconds if self._episode_seconds is None else self._episode_seconds
        return jnp.round(jnp.asarray(seconds, jnp.float32) * self.fps).astype(jnp.int32)

    def init_state(self, key: jax.Array, level_index=None) -> WorldState:
        """A new episode: the level at ``level_index`` (int32[]; a bank's level, or a suite's level
        kind) or one sampled with ``key``; a generator draws the episode's Level from ``key``."""
        k_level, k_episode = jax.random.split(key)
        if self.generator is None:
            if level_index is None:
                level_index = self.bank.sample_index(k_level)
            return new_episode(self.bank.get(level_index), level_index, k_episode, script=self.script,
                               learners=self.players)
        if level_index is None:
            level_index = self.generator.sample_index(k_level)
        k_map, k_episode = jax.random.split(k_episode)
        level = self.generator.episode(k_map, level_index)
        state = new_episode(level, level_index, k_episode, carry_level=True, learners=self.players)
        if self.generator.redraws_on_restart:   # the map the first restart switches to, drawn ahead
            state = state.replace(next_level=self.generator.restart(level, jax.random.fold_in(k_map, 1),
                                                                    level_index))
        return state

    def advance(self, state: WorldState, action):
        """Run ``action_repeat`` frames of ``action`` (int32[7], clipped to the
        spec; with a level script's K custom actions int32[7 + K], the custom values passed as they are,
        as DMLab passes them, to its ``customDiscreteActions`` once before the frames). Frames past the
        episode's end are not run. Returns (state,
        reward float32[], terminated bool[] (the level ended the episode, e.g.
        its goal in rooms_keys_doors_puzzle), truncated bool[] (time limit))."""
        level = self.level(state)
        limit = self.episode_frames(level)
        action = jnp.asarray(action, jnp.int32)
        pending = None
        if self.custom_actions:   # static: DMLab calls customDiscreteActions before the step's frames
            action, custom = action[:len(actions.ACTION_NAMES)], action[len(actions.ACTION_NAMES):]
            state, score, finish = script_custom_actions(self.script, state, level, custom, self.fps)
            pending = (score, finish)
        action = jnp.clip(action, actions.ACTION_MIN, actions.ACTION_MAX)
        learners = None
        if self.players > 1:   # static: row 0 the agent's, rows 1.. the other learners'
            action, learners = action[0], action[1:]
        # A generator that re-draws its map at restarts keeps the next map drawn ahead in the state; after
        # the agent step, only the envs that restarted draw another (``where_rows``).
        redraws = self.generator is not None and self.generator.redraws_on_restart
        next_map = state.next_level if redraws else None

        others = None
        if has_bots(level):   # static: the bots choose their actions once per agent step
            others, state = choose_for(level, state, self.action_repeat, self.fps)
            if learners is not None:
                others = others.at[:learners.shape[0]].set(learners)
            state = state.replace(arena=state.arena.replace(step_score=state.arena.score))

        def one_frame(i, carry):
            state, total, any_restart = carry
            now = state.episode_level if redraws else level
            first = None if pending is None else (jnp.where(i == 0, pending[0], 0.0), (i == 0) & pending[1])
            state, reward, restarted = guarded_frame(now, state, action, self.fps, limit, next_map, self.script,
                                                     others, first)
            if redraws:
                state = state.replace(episode_level=select_tree(restarted, next_map, now))
            return state, total + reward, any_restart | restarted

        state, reward, any_restart = jax.lax.fori_loop(0, self.action_repeat, one_frame,
                                                       (state, jnp.float32(0.0), jnp.bool_(False)))
        if redraws:
            state = state.replace(next_level=where_rows(
                any_restart, self._redraw, _kept,
                (state.episode_level, jax.random.fold_in(state.key, 1), state.level_index, state.next_level)))
        return state, reward, state.finished, state.done & ~state.finished

    def _redraw(self, level: Level, key, level_index, _next) -> Level:
        """The map a restart after ``level`` switches to (the generator's ``restart``)."""
        return self.generator.restart(level, key, level_index)

    def extras(self, state: WorldState) -> dict:
        """``script_error`` (bool[]) for a level compiled from a script that can fail at play (a failed ``assert``
        or Lua's ``error`` in a compiled callback: DMLab stops there; here the callbacks go on and the flag stays
        set), else nothing."""
        flag = None if self.script is None else self.script.script_error(state.script)
        return {} if flag is None else {"script_error": jnp.asarray(flag, bool)}

    def observe(self, state: WorldState):
        """The requested observations of ``state`` (see ``world.observations.observe``)."""
        level = self.level(state)
        if self.script is not None and self.script.has_screen:
            level = script_screen(self.script, state, level, self.fps)
        generator = self.generator
        settings = dict(flat_too=generator is not None and generator.flat_and_heights,
                        ground=None if generator is None else generator.ground, fps=self.fps, masks=self._masks,
                        screens=self.script.textures(state.script) if self.script is not None
                        and self.script.has_textures else None)
        if self.players > 1:
            out = {}
            for player, names in per_player(self.observations).items():
                view = as_player(state, player - 1)
                bases = tuple(b for b in names.values() if b != PLAYER_REWARD)
                seen = observe(level, view, bases, self.width, self.height, **settings) if bases else {}
                seen[PLAYER_REWARD] = player_reward(view)
                out.update({full: seen[base] for full, base in names.items()})
            return out
        out = observe(level, state, self.observations, self.width, self.height, **settings)
        if self.script is not None and (self.script.observes or self.script.has_instruction):
            view = functools.partial(custom_view, self.level(state), state, flat_too=settings["flat_too"],
                                     ground=settings["ground"], masks=self._masks)
            out.update(script_observations(self.script, state, level, self.observations, self.fps, view))
        return out

    def decode(self, tokens):
        """The instruction string of INSTR tokens (int32[..., INSTRUCTION_LENGTH], host-side; a list for a
        batch): ``levels.dmlab.instructions.decode`` with the bank's ``instruction_words``."""
        return decode_instruction(tokens, self.instruction_words)

    def observation_spec(self):
        """dict name -> ArraySpec of the requested observations (custom ones:
        the bank's shape without the bank axis, uint8 or float32)."""
        return dict(self._specs)

    def action_spec(self):
        """BoundedArraySpec int32[7]; ``.minimum``/``.maximum`` give the ranges
        and ``.element_names`` the seven DMLab action names (``levels.dmlab.actions.ACTION_NAMES``), then
        a level script's custom actions (int32[7 + K], their names and bounds as its
        ``customDiscreteActionSpec`` gives them). With ``players`` N > 1: int32[N, 7], a row per player."""
        if self.players > 1:
            return actions.action_spec(self.players)
        return actions.action_spec(custom=self.custom_actions)

    @property
    def discrete_actions(self) -> Mapping[str, Tuple[int, ...]]:
        """DMLab's 9-action IMPALA set, name -> int[7] action row (forward,
        backward, strafe and look left/right, look left/right + forward,
        fire): ``DiscreteActions(env)``'s default table. A level with custom actions: each row with them at
        rest, and rows that set each one (``levels.dmlab.actions.discrete_actions``)."""
        return actions.discrete_actions(self.custom_actions) if self.custom_actions else actions.DISCRETE_ACTIONS
