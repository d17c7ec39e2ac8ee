"""The four PsychLab tasks of the memory suite, run by ``jaxlab.kernels.psychlab.env.PsychlabEnv``.

Every trial starts with a fixation: the gaze rests on the mark at the screen's centre for 6 frames
(``DWELL_FRAMES``); an answer is the gaze resting 6 frames on one of the response targets
(``jaxlab.levels.dmlab.psychlab.task``); each right answer pays 1. Times are frames at 60 frames/s.

- ``arbitrary_visuomotor_mapping``: an image of the episode's pool (scale: pool size, 30-75 images) is
  shown, from the fixation on, with four corner buttons; each pool image has its own button, drawn
  per episode and learnt by trial and error (images recur); only that button pays.
- ``continuous_recognition``: an image of the pool (scale: pool size) with two buttons: left "new",
  right "seen before in this episode".
- ``change_detection``: four coloured squares (2×2) for ``STUDY_FRAMES`` (30) frames, a blank delay
  (scale: 2-250 frames), four squares again, the same or with one recoloured (half the trials); left
  button "same", right "different".
- ``what_then_where``: an image in one of the screen's four quarters for ``STUDY_FRAMES`` (30) frames,
  a blank delay (scale: 4-256 frames), then "what": four images in the corners, the one shown pays;
  then "where": four buttons in the quarters, the one where it was shown pays (2 points a trial).

Stimuli: procedural images (``jaxlab.render.psychlab.images``; train even ids, holdout odd) and, for
change detection, ten named colours (train ids 0-4, holdout 5-9). Episodes last 120 s
(dm_memorytasks' default), what_then_where 600 s (the original's longer episodes).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.memory.splits import Scale, Stimuli, even_odd
from jaxlab.levels.dmlab.memory.tasks import MemoryTask
from jaxlab.levels.dmlab.psychlab.stimuli import KIND_SWATCH, NUM_IMAGES, SWATCH_NAMES
from jaxlab.levels.dmlab.psychlab.task import CENTRE_GRID, CORNER_TARGETS, QUADRANTS, SIDE_TARGETS, PsychlabTask, Trial, items

#: frames the study items of the delayed tasks stay on screen
STUDY_FRAMES = 30
#: what_then_where's episode length (seconds)
WHAT_WHERE_SECONDS = 600.0
IMAGES = Stimuli("procedural images (shape, two colours, texture), train even ids, holdout odd",
                 *even_odd(NUM_IMAGES))
COLOURS = Stimuli("colours: " + ", ".join(f"{i} {name}" for i, name in enumerate(SWATCH_NAMES)),
                  train=(0, 1, 2, 3, 4), holdout=(5, 6, 7, 8, 9))
POOL_SCALE = Scale("images in the episode's pool", train=(30, 50), interpolate=(40,), extrapolate=(75,),
                   small=(30,), large=(50,))
CHANGE_DELAY = Scale("delay (frames)", train=(2, 4, 8, 64, 128), interpolate=(16, 32),
                     extrapolate=(130, 150, 200, 250), small=(2, 4, 8), large=(64, 128))
WHAT_WHERE_DELAY = Scale("delay (frames)", train=(4, 8, 32, 128), interpolate=(16, 64), extrapolate=(160, 256),
                         small=(4, 8), large=(32, 128))


def _largest(scale: Scale) -> int:
    return max(scale.train + scale.interpolate + scale.extrapolate)


class ArbitraryVisuomotorMapping(PsychlabTask):
    """An image of the pool (``draw.stimuli[:draw.scale]``) and four corner buttons; memory: int32[K]
    each pool image's button (drawn per episode)."""

    num_stimuli = _largest(POOL_SCALE)
    targets = (CORNER_TARGETS,)

    def init_memory(self, key, draw):
        """int32[K]: the button (0-3) of each drawn image."""
        return jax.random.randint(key, (self.num_stimuli,), 0, len(self.targets))

    def new_trial(self, key, draw, memory) -> Trial:
        """A pool image, uniformly; the answer is its button."""
        index = jax.random.randint(key, (), 0, draw.scale)
        image = draw.stimuli[index]
        return Trial(study=items(image), probe=items(image), choices=items()[None], answer=memory[index][None])


class ContinuousRecognition(PsychlabTask):
    """An image of the pool and two buttons (left: new, right: seen); memory: int32[K] 1 where the
    drawn image was shown in an answered trial."""

    num_stimuli = _largest(POOL_SCALE)
    targets = (SIDE_TARGETS,)
    target_half = 0.15

    def new_trial(self, key, draw, memory) -> Trial:
        """A pool image, uniformly; the answer is 1 (right) if it was shown before, else 0 (left)."""
        index = jax.random.randint(key, (), 0, draw.scale)
        image = draw.stimuli[index]
        return Trial(study=items(image), probe=items(image), choices=items()[None], answer=memory[index][None])

    def remember(self, memory, draw, trial):
        """``memory`` with the trial's image marked seen."""
        return memory | (draw.stimuli == trial.study[0]).astype(jnp.int32)


class ChangeDetection(PsychlabTask):
    """Four of the five drawn colours as a 2×2 grid; after the delay the grid again, one square
    recoloured (the fifth colour) half the time; left button: same, right: different."""

    num_stimuli = 5
    centre_kind = KIND_SWATCH
    centre = CENTRE_GRID
    targets = (SIDE_TARGETS,)
    target_half = 0.15
    study_frames = STUDY_FRAMES
    delayed = True

    def new_trial(self, key, draw, memory) -> Trial:
        """Colours in a random order; a change with probability 1/2 at a random square."""
        k_order, k_change, k_square = jax.random.split(key, 3)
        colours = jax.random.permutation(k_order, draw.stimuli)
        changed = jax.random.bernoulli(k_change)
        square = jax.random.randint(k_square, (), 0, 4)
        study = colours[:4]
        probe = jnp.where(changed & (jnp.arange(4) == square), colours[4], study)
        return Trial(study=study, probe=probe, choices=items()[None], answer=changed.astype(jnp.int32)[None])


class WhatThenWhere(PsychlabTask):
    """An image in one of the four quarters (``QUADRANTS``), the delay, then two response stages:
    what (four images of the episode's 64 in the corners: choose the one shown) and where (four
    buttons in the quarters: choose the one it was shown in)."""

    num_stimuli = 64
    episode_seconds = WHAT_WHERE_SECONDS
    centre = QUADRANTS
    targets = (CORNER_TARGETS, QUADRANTS[0])
    target_half = 0.2
    study_frames = STUDY_FRAMES
    delayed = True

    def new_trial(self, key, draw, memory) -> Trial:
        """Four distinct images, one of them (uniformly) studied in a quarter drawn uniformly."""
        k_choices, k_answer, k_place = jax.random.split(key, 3)
        choices = jax.random.choice(k_choices, draw.stimuli, (4,), replace=False)
        answer = jax.random.randint(k_answer, (), 0, 4)
        place = jax.random.randint(k_place, (), 0, 4)
        study = jnp.where(jnp.arange(4) == place, choices[answer], -1)
        return Trial(study=study, probe=items(), choices=jnp.stack([choices, items()]),
                     answer=jnp.stack([answer, place]))


def _builder(cls):
    return lambda level_name, stimulus_ids, scale_values: cls(level_name, stimulus_ids, scale_values)


TASKS = (
    MemoryTask(name="arbitrary_visuomotor_mapping", kind="psychlab", stimuli=IMAGES, scale=POOL_SCALE,
               build=_builder(ArbitraryVisuomotorMapping),
               summary="learn which of four buttons each image of the episode's pool asks for", success=55.0),
    MemoryTask(name="change_detection", kind="psychlab", stimuli=COLOURS, scale=CHANGE_DELAY,
               build=_builder(ChangeDetection),
               summary="after a delay, tell whether one of four coloured squares changed colour", success=25.0),
    MemoryTask(name="continuous_recognition", kind="psychlab", stimuli=IMAGES, scale=POOL_SCALE,
               build=_builder(ContinuousRecognition),
               summary="tell whether each image was already shown in this episode", success=55.0),
    MemoryTask(name="what_then_where", kind="psychlab", stimuli=IMAGES, scale=WHAT_WHERE_DELAY,
               build=_builder(WhatThenWhere),
               summary="after a delay, find the image shown among four (what), then where it was shown (where)",
               success=40.0),
)
