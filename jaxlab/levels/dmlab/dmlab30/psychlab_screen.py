"""What DMLab-30's four PsychLab levels share: the screen and where the agent sits, a trial's phases,
the response buttons' looks, the staircase, and the form of a task (``ScreenTask``).

DeepMind Lab's PsychLab room (its ``big_screen`` map) hangs a square screen 112 units a side whose
centre is 90.5 units in front of the agent's eye and 1 unit above it (the screen's centre at z 123, the
agent's feet on a platform at z 72, its eye ``units.EYE_HEIGHT`` over them); the agent answers by looking
(DMLab's ``lookat`` gives the screen point under the crosshair each frame). Screen coordinates here
are x from -1 (left edge) to 1 (right edge) and y from -1 (bottom) to 1 (top): 56 units a screen
unit. A widget is *hovered* in a frame when the gaze point lies on it; what a level does on the
first frame of a hover and on the frame a hover ends is the level's (DMLab's point-and-click
callbacks).

Every trial of every level: FIXATE (the red fixation cross; hovering its centre for one frame starts
the trial), then for a self-paced study (sequential comparison) STUDY (the study array and an
"end study" button; the hover on it ending starts) DELAY (``Trial.delay`` frames), then RESPOND (the
test stimulus and the response buttons: the first frame on a button colours it, the frame the gaze
leaves it pays ``CORRECT_REWARD`` if it was the right one, else ``INCORRECT_REWARD``, and ends the
trial), then WAIT (``INTER_TRIAL_FRAMES``) before the next fixation cross. An episode ends after
the level's ``trials_cap`` trials or its ``episode_seconds``.
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

FIXATE, STUDY, DELAY, RESPOND, WAIT = range(5)
PHASES = ("FIXATE", "STUDY", "DELAY", "RESPOND", "WAIT")
#: the screen's side, the eye's distance to its centre and the eye's depth below its centre (units)
SCREEN_SIDE_UNITS = 112.0
EYE_DISTANCE_UNITS = 90.5
EYE_BELOW_CENTRE_UNITS = 1.0
#: game units per screen unit
UNITS_PER_SCREEN_UNIT = SCREEN_SIDE_UNITS / 2.0
#: DMLab's horizontal field of view (degrees)
FIELD_OF_VIEW = 90.0
#: the fixation cross's half side, and the half side of the centre square whose hover starts a trial
FIXATION_HALF = 0.1
FIXATION_HOVER_HALF = 0.05
#: frames between a trial's end and the next fixation cross (DMLab's fast inter-trial interval)
INTER_TRIAL_FRAMES = 1
CORRECT_REWARD = 1.0
INCORRECT_REWARD = 0.0
#: what a response button shows: black; green / red while hovered (right / wrong); dull green / dull
#: red (arbitrary visuomotor mapping's hint on an image's first showing)
BUTTON_BLACK, BUTTON_GREEN, BUTTON_RED, BUTTON_DULL_GREEN, BUTTON_DULL_RED = range(5)
BUTTON_RGB = ((0, 0, 0), (100, 255, 100), (255, 100, 100), (100, 200, 100), (200, 100, 100))
#: the screen's background and the fixation cross's colour
BACKGROUND_RGB = (255, 255, 255)
FIXATION_RGB = (255, 0, 0)
#: response buttons' half side (DMLab: a tenth of the screen's side)
BUTTON_HALF = 0.1
#: the left and right buttons at mid height (continuous recognition, sequential comparison)
SIDE_BUTTONS = np.array([[-0.9, 0.0], [0.9, 0.0]], np.float32)
#: most response buttons a level has, cells in a stimulus grid's side, images an episode may hold
MAX_BUTTONS = 4
GRID_SIDE = 7
GRID_CELLS = GRID_SIDE * GRID_SIDE
MAX_HELD = 64


@struct.dataclass
class Staircase:
    """DMLab's PsychLab staircase: at difficulty ``level`` (int32[], from 1) a block is ``level`` trials;
    ``index`` int32[] trials into the block, ``correct`` int32[] right answers in it, ``perfect`` bool[]
    none wrong so far; ``rung`` int32[] what the difficulty sets (a set-size index, a set size or the
    number of image-response pairs)."""

    level: jnp.ndarray
    index: jnp.ndarray
    correct: jnp.ndarray
    perfect: jnp.ndarray
    rung: jnp.ndarray


def new_staircase(rung: int) -> Staircase:
    """A staircase at difficulty 1 with its setting at ``rung``."""
    zero = jnp.int32(0)
    return Staircase(level=jnp.int32(1), index=zero, correct=zero, perfect=jnp.bool_(True), rung=jnp.int32(rung))


def staircase_step(s: Staircase, correct, top: int, demotes: bool) -> Tuple[Staircase, jnp.ndarray]:
    """The staircase after a trial answered ``correct`` (bool[]): at the block's end it is promoted when
    every trial was right (level and rung up, the rung at most ``top``), else, when ``demotes`` and at
    most half (rounded down) were right, demoted (level and rung down, not below 1). Returns
    (staircase, bool[] the block ended)."""
    index = s.index + 1
    count = s.correct + correct.astype(jnp.int32)
    perfect = s.perfect & correct
    ended = index == s.level
    worse = demotes & (count <= s.level // 2)
    up, down = ended & perfect, ended & ~perfect & worse
    step = up.astype(jnp.int32) - (down & (s.level > 1)).astype(jnp.int32)
    rung_step = up.astype(jnp.int32) - (down & (s.rung > 1)).astype(jnp.int32)
    return Staircase(level=s.level + step, index=jnp.where(ended, 0, index), correct=jnp.where(ended, 0, count),
                     perfect=perfect | ended, rung=jnp.minimum(s.rung + rung_step, top)), ended


@struct.dataclass
class Trial:
    """One trial of any of the four levels (fields a level does not use stay -1 / 0): image int32[] the
    centre image's id (-1: none); study int32[GRID_CELLS] and test int32[GRID_CELLS] the stimulus
    grid's cells (row-major from the top left; a level's item code, -1 empty) shown at study and at
    test; answer int32[] the right button; hint bool[] the buttons show the right one (dull colours)
    before a hover; delay int32[] DELAY's frames; end_button int32[] which of the level's end-study
    places holds the end-study button."""

    image: jnp.ndarray
    study: jnp.ndarray
    test: jnp.ndarray
    answer: jnp.ndarray
    hint: jnp.ndarray
    delay: jnp.ndarray
    end_button: jnp.ndarray


def blank_trial() -> Trial:
    """A trial showing nothing (the fields' shapes and dtypes for every level)."""
    none = jnp.full((GRID_CELLS,), -1, jnp.int32)
    zero = jnp.int32(0)
    return Trial(image=jnp.int32(-1), study=none, test=none, answer=zero, hint=jnp.bool_(False), delay=zero,
                 end_button=zero)


@struct.dataclass
class Memory:
    """What a level keeps across an episode's trials (fields a level does not use stay 0): stair the
    ``Staircase``; ids int32[MAX_HELD] image ids held (images shown so far, or the image-response
    pairs' images); responses int32[MAX_HELD] each pair's right button; shown int32[MAX_HELD] how
    often each pair was shown; order int32[MAX_HELD] the block's order of pairs; count int32[] ids
    held; cursor int32[] the next place in ``order``; bijection int32[2] (odd multiplier, offset) of
    the episode's order of new images."""

    stair: Staircase
    ids: jnp.ndarray
    responses: jnp.ndarray
    shown: jnp.ndarray
    order: jnp.ndarray
    count: jnp.ndarray
    cursor: jnp.ndarray
    bijection: jnp.ndarray


def new_memory(key: jax.Array, rung: int) -> Memory:
    """An episode's empty memory, its staircase's setting at ``rung`` and its order of new images drawn
    from ``key``."""
    zeros = jnp.zeros((MAX_HELD,), jnp.int32)
    k_mul, k_off = jax.random.split(key)
    bijection = jnp.stack([2 * jax.random.randint(k_mul, (), 0, 1 << 11) + 1,
                           jax.random.randint(k_off, (), 0, 1 << 12)])
    return Memory(stair=new_staircase(rung), ids=zeros, responses=zeros, shown=zeros, order=zeros,
                  count=jnp.int32(0), cursor=jnp.int32(0), bijection=bijection.astype(jnp.int32))


def new_image(memory: Memory, k, num_images: int) -> jnp.ndarray:
    """int32[]: the episode's ``k``-th new image id (an odd multiply and an offset modulo ``num_images``,
    a power of two: a new order of distinct images every episode)."""
    return (memory.bijection[0] * k + memory.bijection[1]) & (num_images - 1)


def random_cells(key: jax.Array, allowed: np.ndarray, count) -> jnp.ndarray:
    """int32[GRID_CELLS]: each cell's place (0, 1, ...) in a uniformly random order of the ``allowed``
    cells (bool[GRID_CELLS]), GRID_CELLS for a cell not allowed; the cells with a place under ``count``
    (int32[]) are a uniform random set of that many."""
    keys = jnp.where(jnp.asarray(allowed), jax.random.uniform(key, (GRID_CELLS,)), 2.0)
    place = jnp.argsort(jnp.argsort(keys)).astype(jnp.int32)
    return jnp.where(jnp.asarray(allowed), place, GRID_CELLS)


class ScreenTask:
    """One DMLab-30 PsychLab level as data for ``jaxlab.kernels.psychlab.dmlab30_env``.

    Attributes: name; episode_seconds; trials_cap (trials per episode); buttons float32[B, 2] the
    response buttons' centres (screen units); image_half the centre image's half side (0: none);
    grid (x, y of the stimulus grid's top-left corner, cell side; screen units) or None; grid_kind
    the grid's item codes' kind (a key of the renderer's item tiles); self_paced (STUDY and DELAY
    phases); end_buttons float32[4, 2] the end-study button's places; end_half its half side; rung
    the staircase setting an episode starts at; reveals_all (a hover colours every button, the right
    one green, rather than the hovered one alone).
    """

    name: str = ""
    episode_seconds: float = 300.0
    trials_cap: int = 60
    buttons: np.ndarray = SIDE_BUTTONS
    image_half: float = 0.0
    grid: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    grid_kind: str = ""
    self_paced: bool = False
    end_buttons: np.ndarray = np.zeros((4, 2), np.float32)
    end_half: float = 0.0
    rung: int = 1
    reveals_all: bool = False

    def init_memory(self, key: jax.Array) -> Memory:
        """The episode's memory before its first trial."""
        return new_memory(key, self.rung)

    def new_trial(self, key: jax.Array, memory: Memory) -> Tuple[Trial, Memory]:
        """The trial that starts when the fixation cross is fixated, drawn from ``key``; the memory after
        drawing it."""
        raise NotImplementedError

    def finish(self, key: jax.Array, memory: Memory, trial: Trial, correct) -> Memory:
        """The memory after ``trial`` was answered, ``correct`` (bool[]) or not; ``key`` for what that
        draws (default: unchanged)."""
        return memory
