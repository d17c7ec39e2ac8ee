"""What a PsychLab task is for ``PsychlabEnv``: its screen layout and its trials.

Every trial runs the same phases (``PHASES``): FIXATE (a fixation mark at the screen centre, until the
gaze has dwelt on it), STUDY (``study_frames`` frames: the trial's study items at the centre), DELAY
(``delay_frames(draw)`` frames: an empty screen) and RESPOND (the probe items at the centre and the
response targets, until the gaze dwells on a target: that is the answer). A task says what a trial
shows (``Trial``: item ids, -1 for none) and which target is right; the env does the rest.

The centre items are drawn as ``centre_kind`` (images or colour swatches), in one of two layouts:
``CENTRE_SINGLE`` (one large item) or ``CENTRE_GRID`` (four squares, 2×2). A target shows its
``Trial.choices`` image, or a plain button where that is -1.
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.dmlab.memory.tasks import EpisodeDraw, SplitTask
from jaxlab.render.psychlab.screen import KIND_IMAGE

FIXATE, STUDY, DELAY, RESPOND = range(4)
PHASES = ("FIXATE", "STUDY", "DELAY", "RESPOND")
#: the four centre slots' (x, y) centres and half sides (screen units) in each layout
CENTRE_SINGLE = (np.array([[0.0, 0.0]] * 4, np.float32), np.array([0.3, 0.0, 0.0, 0.0], np.float32))
CENTRE_GRID = (np.array([[-0.2, 0.2], [0.2, 0.2], [-0.2, -0.2], [0.2, -0.2]], np.float32),
               np.full((4,), 0.14, np.float32))
#: response-target centres (screen units): four corners, or left / right
CORNER_TARGETS = np.array([[-0.62, 0.45], [0.62, 0.45], [-0.62, -0.45], [0.62, -0.45]], np.float32)
SIDE_TARGETS = np.array([[-0.65, 0.0], [0.65, 0.0]], np.float32)


@struct.dataclass
class Trial:
    """What one trial shows: study int32[4] (centre items during STUDY), probe int32[4] (centre items
    during RESPOND), choices int32[4] (images on the targets; -1: a plain button, or no target),
    answer int32[] (index of the right target). Item ids are image or colour ids; -1: nothing."""

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

    Attributes:
      name: the level name; stimulus_ids, scale_values: the split's sets; num_stimuli: K of the draw;
      episode_seconds: the episode length (120 s); centre_kind: ``KIND_IMAGE`` or ``KIND_SWATCH``;
      centre: ``CENTRE_SINGLE`` or ``CENTRE_GRID``; targets: float32[T, 2] target centres (T ≤ 4);
      target_half: the targets' half side (screen units); study_frames: STUDY's length in frames;
      delayed: DELAY lasts the draw's scale value in frames (else there is no delay).
    """

    centre_kind: int = KIND_IMAGE
    centre: Tuple[np.ndarray, np.ndarray] = CENTRE_SINGLE
    targets: np.ndarray = CORNER_TARGETS
    target_half: float = 0.13
    study_frames: int = 0
    delayed: bool = False

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
