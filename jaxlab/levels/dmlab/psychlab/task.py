"""What a PsychLab task is for ``PsychlabEnv``: its screen layout and its trials.

Every trial runs the same phases (``PHASES``): FIXATE (a fixation mark at the screen centre, until the
gaze has rested on it), STUDY (``study_frames`` frames: the trial's study items in the centre slots),
DELAY (``delay_frames(draw)`` frames: an empty screen) and RESPOND (the probe items in the centre
slots and the response targets, until the gaze rests on a target: that is the answer). RESPOND has one
stage per entry of ``targets`` (what_then_where has two: what, then where); each stage shows its own
targets and has its own right answer. A task says what a trial shows (``Trial``: item ids, -1 for
none) and which targets are right; the env does the rest.

The four centre slots are drawn as ``centre_kind`` (images or colour swatches) in one of the
layouts ``CENTRE_SINGLE`` (one large item), ``CENTRE_GRID`` (four small squares, 2×2) or
``QUADRANTS`` (four larger squares, one per quarter of the screen). A target shows its stage's
``Trial.choices`` image, or a plain button where that is -1.
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.dmlab.memory.tasks import EpisodeDraw, SplitTask
from jaxlab.levels.dmlab.psychlab.stimuli import KIND_IMAGE

FIXATE, STUDY, DELAY, RESPOND = range(4)
PHASES = ("FIXATE", "STUDY", "DELAY", "RESPOND")
#: the four centre slots' (x, y) centres and half sides (screen units) in each layout
CENTRE_SINGLE = (np.array([[0.0, 0.0]] * 4, np.float32), np.array([0.3, 0.0, 0.0, 0.0], np.float32))
CENTRE_GRID = (np.array([[-0.2, 0.2], [0.2, 0.2], [-0.2, -0.2], [0.2, -0.2]], np.float32),
               np.full((4,), 0.14, np.float32))
QUADRANTS = (np.array([[-0.34, 0.28], [0.34, 0.28], [-0.34, -0.28], [0.34, -0.28]], np.float32),
             np.full((4,), 0.2, np.float32))
#: response-target centres (screen units): four corners, or left / right
CORNER_TARGETS = np.array([[-0.64, 0.47], [0.64, 0.47], [-0.64, -0.47], [0.64, -0.47]], np.float32)
SIDE_TARGETS = np.array([[-0.65, 0.0], [0.65, 0.0]], np.float32)
#: most targets a response stage may have
MAX_TARGETS = 4


@struct.dataclass
class Trial:
    """What one trial shows: study int32[4] (centre items during STUDY), probe int32[4] (centre items
    during RESPOND), choices int32[S, 4] (images on each stage's targets; -1: a plain button, or no
    target), answer int32[S] (index of each stage's right target). Item ids are image or colour ids;
    -1: nothing. S is the task's number of response stages."""

    study: jnp.ndarray
    probe: jnp.ndarray
    choices: jnp.ndarray
    answer: jnp.ndarray


def items(*ids) -> jnp.ndarray:
    """int32[4]: ``ids`` (int32[] each, at most 4) padded with -1."""
    ids = [jnp.asarray(i, jnp.int32) for i in ids]
    return jnp.stack(ids + [jnp.int32(-1)] * (4 - len(ids)))


class PsychlabTask(SplitTask):
    """Base of one split of a PsychLab task (subclasses set the layout and implement ``new_trial``).

    Attributes (besides ``SplitTask``'s):
      centre_kind: ``KIND_IMAGE`` or ``KIND_SWATCH``; centre: ``CENTRE_SINGLE``, ``CENTRE_GRID`` or
      ``QUADRANTS``; targets: one float32[T, 2] array of target centres (screen units, T ≤ 4) per
      response stage; target_half: the targets' half side (screen units); study_frames: STUDY's
      length in frames; delayed: DELAY lasts the draw's scale value in frames (else there is none).
    """

    centre_kind: int = KIND_IMAGE
    centre: Tuple[np.ndarray, np.ndarray] = CENTRE_SINGLE
    targets: Tuple[np.ndarray, ...] = (CORNER_TARGETS,)
    target_half: float = 0.13
    study_frames: int = 0
    delayed: bool = False

    @property
    def num_stages(self) -> int:
        """The number of response stages S."""
        return len(self.targets)

    def stage_targets(self) -> Tuple[np.ndarray, np.ndarray]:
        """(float32[S, 4, 2] each stage's target centres, padded with zeros; bool[S, 4] which are real)."""
        centres = np.zeros((self.num_stages, MAX_TARGETS, 2), np.float32)
        real = np.zeros((self.num_stages, MAX_TARGETS), bool)
        for stage, where in enumerate(self.targets):
            centres[stage, :len(where)] = where
            real[stage, :len(where)] = True
        return centres, real

    def delay_frames(self, draw: EpisodeDraw) -> jnp.ndarray:
        """int32[]: DELAY's length in frames (the draw's scale value, or 0 for an undelayed task)."""
        return draw.scale if self.delayed else jnp.int32(0)

    def init_memory(self, key: jax.Array, draw: EpisodeDraw) -> jnp.ndarray:
        """int32[K]: what the task keeps across trials, one value per drawn stimulus (default zeros)."""
        return jnp.zeros((self.num_stimuli,), jnp.int32)

    def new_trial(self, key: jax.Array, draw: EpisodeDraw, memory) -> Trial:
        """The next trial, drawn from ``key`` given the episode's ``memory`` (int32[K])."""
        raise NotImplementedError

    def remember(self, memory, draw: EpisodeDraw, trial: Trial) -> jnp.ndarray:
        """int32[K]: ``memory`` after ``trial`` was answered (default unchanged)."""
        return memory
