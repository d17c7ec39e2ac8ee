"""What a memory task is: its splits, the per-episode draw, and the interface of its on-device levels.

Every task module (``spot_diff``, ``goal_navigation``, ``transitive_inference``, ``psychlab_tasks``)
exposes ``TASKS``: a tuple of ``MemoryTask``s. A task's ``build(level_name, stimulus_ids, scale_values)`` returns
what its env runs for one split: a ``MemoryTaskGenerator`` (first-person tasks, run by
``jaxlab.kernels.memory.env.MemoryTaskEnv``) or a PsychLab task (run by ``jaxlab.kernels.psychlab.env.PsychlabEnv``).

Each episode starts with a draw (``EpisodeDraw``): the stimuli the episode may show and its scale
value, drawn from the split's sets only. Everything the episode shows comes from its draw, so
"holdout stimuli never occur in train levels" is a property of the draw, checked over many keys.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Tuple

import jax
import jax.numpy as jnp
from flax import struct

from jaxlab.levels.dmlab.memory.splits import Scale, Stimuli

DEFAULT_EPISODE_SECONDS = 120.0
#: episode length (game seconds) over which ``MemoryTask.success`` is measured
SUCCESS_SECONDS = 60.0


@struct.dataclass
class EpisodeDraw:
    """One episode's draw: stimuli int32[K] (distinct ids from the split's stimulus set, in the order
    the episode uses them; K is fixed per task) and scale int32[] (one of the split's scale values)."""

    stimuli: jnp.ndarray
    scale: jnp.ndarray


def draw_episode(key: jax.Array, stimulus_ids: Tuple[int, ...], scale_values: Tuple[int, ...],
                 num_stimuli: int) -> EpisodeDraw:
    """An ``EpisodeDraw``: ``num_stimuli`` distinct ids drawn uniformly without replacement from
    ``stimulus_ids`` (at least that many), and a scale value drawn uniformly from ``scale_values``."""
    if len(stimulus_ids) < num_stimuli:
        raise ValueError(f"a draw of {num_stimuli} stimuli needs at least that many ids, not {len(stimulus_ids)}")
    k_stim, k_scale = jax.random.split(key)
    ids = jnp.asarray(stimulus_ids, jnp.int32)
    # the top K of uniform noise: K distinct ids, uniformly, in a uniformly random order (O(N), no sort)
    chosen = ids[jax.lax.top_k(jax.random.uniform(k_stim, ids.shape), num_stimuli)[1]]
    scale = jnp.asarray(scale_values, jnp.int32)[jax.random.randint(k_scale, (), 0, len(scale_values))]
    return EpisodeDraw(stimuli=chosen, scale=scale)


class MemoryTask(NamedTuple):
    """A base task of the suite.

    name: the base name (``spot_diff``); kind: ``first_person`` or ``psychlab``;
    stimuli, scale: the splits' sets (``splits.Stimuli``, ``splits.Scale``);
    build: ``(level_name, stimulus_ids, scale_values) -> generator`` for one split;
    summary: one line on what the agent must do (docs and contact sheets);
    success: the mean ``Score`` the task's oracle policy reaches in a ``SUCCESS_SECONDS`` episode of
      the ``_train`` (or ``_train_small``) level: the documented success (a random policy scores
      clearly below it).
    """

    name: str
    kind: str
    stimuli: Stimuli
    scale: Scale
    build: Callable
    summary: str
    success: float


class SplitTask:
    """What every task object of one split holds (first-person generators and PsychLab tasks alike):
    the level name, the split's stimulus ids and scale values, the draw size ``num_stimuli`` (K) and
    the episode length ``episode_seconds`` (dm_memorytasks' default 120 s)."""

    num_stimuli: int = 1
    episode_seconds: float = DEFAULT_EPISODE_SECONDS

    def __init__(self, name: str, stimulus_ids: Tuple[int, ...], scale_values: Tuple[int, ...]):
        self.name = name
        self.stimulus_ids = tuple(int(i) for i in stimulus_ids)
        self.scale_values = tuple(int(v) for v in scale_values)

    def draw(self, key: jax.Array) -> EpisodeDraw:
        """The episode's draw (``draw_episode`` over the split's sets)."""
        return draw_episode(key, self.stimulus_ids, self.scale_values, self.num_stimuli)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class MemoryTaskGenerator(SplitTask):
    """Base of a first-person memory task for one split (subclasses implement ``trial``; pure jnp).

    An episode is a run of trials: ``trial(key, draw, 0)`` is the first map; each map restart (a goal
    taken: a choice made) moves to ``trial(key, draw, n)``. Every Level of a generator has one shape
    whatever the draw (pad to the largest scale value).

    Attributes (besides ``SplitTask``'s):
      new_level_per_trial: each trial has its own Level (``trial`` is drawn every agent step, ready for
        a restart); False: the first trial's Level holds for the whole episode (a restart only
        respawns the player), and ``trial`` is called once per episode.
    """

    new_level_per_trial: bool = True

    def trial(self, key: jax.Array, draw: EpisodeDraw, trial) -> "Level":  # noqa: F821
        """The Level of trial ``trial`` (int32[], 0 first) of the episode with ``draw``."""
        raise NotImplementedError

    def shown(self, level, draw: EpisodeDraw, seconds) -> "Level":  # noqa: F821
        """The Level as it is at ``seconds`` (float32[]) into the trial: moving objects moved. Default:
        ``level`` unchanged."""
        return level

    def scripted_action(self, level, world, draw: EpisodeDraw, trial_frames):
        """(bool[] active, float32[7] DMLab action): while active the level moves the player and the
        agent's action is ignored (passive study). Default: never active."""
        return jnp.bool_(False), jnp.zeros((7,), jnp.float32)

    def stimuli_shown(self, level, draw: EpisodeDraw) -> jnp.ndarray:
        """int32[M] the stimulus ids ``level`` shows, read back from the Level itself (its pickup looks,
        wall colours, goal cell, ...; -1 pads): what the split tests check against the split's set."""
        raise NotImplementedError

    def oracle(self, level, world, draw: EpisodeDraw, trial, trial_frames) -> jnp.ndarray:
        """float32[4] memory action of a privileged policy that solves the task (tests, contact sheets)."""
        raise NotImplementedError
