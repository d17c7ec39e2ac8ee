"""``psychlab_visual_search``: is the magenta T among the shapes? Look at the right button for yes,
the left for no.

DeepMind Lab's facts: a 512-pixel screen, white; the search array fills the screen less a tenth on
each side, as a 7×7 grid of 56-pixel cells (``GRID``); a trial places ``set size`` shapes in random
cells, each a 4×4 pattern (``SHAPES``: T, inverted T, L, mirrored L, Γ, mirrored Γ, S, Z) in one of
``COLOURS`` (magenta first). The target is the magenta T, present in half the trials; the search mode
(drawn per trial among shape, colour and conjunction) says what the distractors are: a magenta
non-T (shape), a T of another colour (colour) or any other shape-colour pair (conjunction). The set
size is ``SET_SIZES[rung - 1]``, the rung set by the staircase (promoted after a block of K trials all
right, demoted when at most K/2 were, K the difficulty). Two black buttons at the bottom: left
"absent", right "present". 80 trials at most, 150 s an episode.
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.dmlab30.psychlab_screen import (BUTTON_HALF, GRID_CELLS, Memory, ScreenTask, Trial,
                                                         blank_trial, random_cells, staircase_step)

#: the shapes as 4 rows of 4 cells, top row first ("#" the shape's colour); shape 0 is the target's
SHAPES = (
    ("###.", ".#..", ".#..", "...."),   # T
    (".#..", ".#..", "###.", "...."),   # inverted T
    ("#...", "#...", "###.", "...."),   # L
    ("..#.", "..#.", "###.", "...."),   # mirrored L
    ("###.", "#...", "#...", "...."),   # Γ
    ("###.", "..#.", "..#.", "...."),   # mirrored Γ
    (".##.", ".#..", "##..", "...."),   # S
    ("##..", ".#..", ".##.", "...."),   # Z
)
#: the colours (RGB); colour 0, magenta, is the target's
COLOURS = ((255, 0, 191), (255, 191, 0), (0, 255, 255), (0, 63, 255), (127, 0, 255))
#: an item's code is colour * len(SHAPES) + shape; the target's is 0
NUM_ITEMS = len(SHAPES) * len(COLOURS)
SET_SIZES = (1, 1, 1, 2, 2, 4, 8, 16, 24, 32)
#: the grid's top-left corner (x, y) and cell side, screen units: the array starts a tenth of the
#: screen in, its 409-pixel side holding 7 cells of 56 pixels 8 pixels in
GRID = (-1.0 + (51.2 + 8.0) / 256.0, 1.0 - (51.2 + 8.0) / 256.0, 56.0 / 256.0)
#: the buttons: 0 "absent" (left), 1 "present" (right), each a tenth of the screen, at the bottom
BUTTONS = np.array([[-0.2, -1.0 + BUTTON_HALF], [0.2, -1.0 + BUTTON_HALF]], np.float32)
SHAPE_MODE, COLOUR_MODE, CONJUNCTION_MODE = range(3)


def distractors(key: jax.Array, mode) -> jnp.ndarray:
    """int32[GRID_CELLS]: a distractor's item code per cell for search mode ``mode`` (int32[])."""
    k_shape, k_colour, k_pair = jax.random.split(key, 3)
    shape = jax.random.randint(k_shape, (GRID_CELLS,), 1, len(SHAPES))
    colour = jax.random.randint(k_colour, (GRID_CELLS,), 1, len(COLOURS))
    pair = jax.random.randint(k_pair, (GRID_CELLS,), 1, NUM_ITEMS)
    return jnp.select([mode == SHAPE_MODE, mode == COLOUR_MODE], [shape, colour * len(SHAPES)], pair).astype(jnp.int32)


class VisualSearch(ScreenTask):
    """The visual-search level (``SET_SIZES`` rung from 1, at most 10)."""

    name = "psychlab_visual_search"
    episode_seconds = 150.0
    trials_cap = 80
    buttons = BUTTONS
    grid = GRID
    grid_kind = "search"

    def set_size(self, memory: Memory) -> jnp.ndarray:
        """int32[]: the set size the staircase's rung gives."""
        return jnp.asarray(SET_SIZES, jnp.int32)[memory.stair.rung - 1]

    def new_trial(self, key: jax.Array, memory: Memory) -> Tuple[Trial, Memory]:
        """A search array of the staircase's set size; the answer is 1 (present) or 0 (absent)."""
        k_present, k_mode, k_cells, k_items = jax.random.split(key, 4)
        present = jax.random.bernoulli(k_present)
        mode = jax.random.randint(k_mode, (), 0, 3)
        place = random_cells(k_cells, np.ones((GRID_CELLS,), bool), self.set_size(memory))
        items = jnp.where((place == 0) & present, 0, distractors(k_items, mode))
        cells = jnp.where(place < self.set_size(memory), items, -1)
        return blank_trial().replace(study=cells, test=cells, answer=present.astype(jnp.int32)), memory

    def finish(self, key: jax.Array, memory: Memory, trial: Trial, correct) -> Memory:
        """The staircase steps (``SET_SIZES`` has 10 rungs)."""
        stair, _ = staircase_step(memory.stair, correct, len(SET_SIZES), demotes=True)
        return memory.replace(stair=stair)
