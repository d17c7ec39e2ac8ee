"""``psychlab_sequential_comparison``: a study array, a delay, a test array: is it the same? Look at
the right button for "same", the left for "different".

DeepMind Lab's facts: a 256-pixel screen, white; the arrays fill its middle three quarters as a 64×64
grid of which objects take 8×8 cells at offsets 4, 12, ..., 52: a 7×7 grid (``GRID``) whose 4×4
middle block of cells (rows and columns 1, 2, 4, 5 both) stays empty, 33 cells left (``ALLOWED``).
An object is an E (open to the left, right, top or bottom) or a square, in one of ``COLOURS``; each
trial draws a domain (``DOMAINS``) that says which objects it may have. The study is self-paced: a
turquoise-framed "end study" button sits at one of four places in the empty block (``END_BUTTONS``);
the study ends when the gaze, having been on it, leaves it. A delay drawn uniformly from
``DELAYS`` frames follows (not adapted), then the test array: in half the trials the same, else one
object changed by one of its domain's changes (colour, orientation or E<->square). The set size is
the staircase's difficulty (from 1; promoted after a block of K trials all right, demoted when at
most K/2 were). Left button "different", right "same"; 60 trials at most, 300 s an episode.
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.dmlab30.psychlab_screen import (GRID_CELLS, GRID_SIDE, SIDE_BUTTONS, Memory, ScreenTask,
                                                         Trial, blank_trial, random_cells, staircase_step)

COLOURS = ((255, 0, 0), (255, 191, 0), (127, 255, 0), (0, 255, 255), (0, 63, 255), (127, 0, 255), (255, 0, 191))
#: an E's orientations: the side its two notches open to (open to the right it reads as the letter)
ORIENTATIONS = ("left", "right", "up", "down")
#: an item's code: an E is orientation * len(COLOURS) + colour, a square SQUARES + colour
SQUARES = len(ORIENTATIONS) * len(COLOURS)
NUM_ITEMS = SQUARES + len(COLOURS)
#: the domains: (E allowed, square allowed, one orientation per trial, one colour per trial)
DOMAINS = {"E_ALL": (True, False, False, False), "E_COLOR": (True, False, True, False),
           "E_ORIENTATION": (True, False, False, True), "SQUARE_COLOR": (False, True, False, False),
           "ALL": (True, True, False, False)}
DELAYS = (8, 16, 32, 64, 128, 256)
#: the grid's top-left corner (x, y) and cell side, screen units
GRID = (-0.75 + 1.5 * 4 / 64, 0.75 - 1.5 * 4 / 64, 1.5 * 8 / 64)
_MIDDLE = np.isin(np.arange(GRID_SIDE), (1, 2, 4, 5))
ALLOWED = ~(_MIDDLE[:, None] & _MIDDLE[None, :]).reshape(-1)
#: the end-study button's four places (centres, screen units) and its half side (3/32 of the screen)
END_HALF = 0.09375
END_BUTTONS = np.array([[x, y] for x in (-0.28125, 0.21875) for y in (0.28125, -0.21875)], np.float32)


def decode(code):
    """(is_e bool, colour int32, orientation int32) of item codes ``code`` (int32, >= 0)."""
    is_e = code < SQUARES
    return is_e, jnp.where(is_e, code % len(COLOURS), code - SQUARES), jnp.where(is_e, code // len(COLOURS), 0)


def encode(is_e, colour, orientation) -> jnp.ndarray:
    """int32: the item codes of objects (is_e bool, colour, orientation int32; broadcast)."""
    return jnp.where(is_e, orientation * len(COLOURS) + colour, SQUARES + colour).astype(jnp.int32)


def study_items(key: jax.Array, domain) -> jnp.ndarray:
    """int32[GRID_CELLS]: an object's code per cell drawn from domain ``domain`` (int32[], a ``DOMAINS``
    index)."""
    table = jnp.asarray(list(DOMAINS.values()))[domain]
    k_fix_o, k_fix_c, k_e, k_c, k_o = jax.random.split(key, 5)
    colour = jnp.where(table[3], jax.random.randint(k_fix_c, (), 0, len(COLOURS)),
                       jax.random.randint(k_c, (GRID_CELLS,), 0, len(COLOURS)))
    orientation = jnp.where(table[2], jax.random.randint(k_fix_o, (), 0, 4),
                            jax.random.randint(k_o, (GRID_CELLS,), 0, 4))
    is_e = jnp.where(table[0] & table[1], jax.random.bernoulli(k_e, 0.5, (GRID_CELLS,)), table[0])
    return encode(is_e, colour, orientation)


def changed(key: jax.Array, code, domain) -> jnp.ndarray:
    """int32[]: object ``code`` (int32[]) after one change its domain allows, drawn uniformly: a new
    colour, a new orientation (an E) or E<->square (domain ALL)."""
    is_e, colour, orientation = decode(code)
    names = list(DOMAINS)
    k_which, k_c, k_o = jax.random.split(key, 3)
    # the changes allowed, as (optotype, colour, orientation) flags per domain
    allowed = jnp.stack([domain == names.index("ALL"),
                         domain != names.index("E_ORIENTATION"),
                         (domain == names.index("E_ALL")) | (domain == names.index("E_ORIENTATION"))
                         | ((domain == names.index("ALL")) & is_e)])
    pick = jax.random.uniform(k_which, (3,))
    which = jnp.argmax(jnp.where(allowed, pick, -1.0))
    new_colour = (colour + 1 + jax.random.randint(k_c, (), 0, len(COLOURS) - 1)) % len(COLOURS)
    new_orientation = (orientation + 1 + jax.random.randint(k_o, (), 0, 3)) % 4
    return jnp.select([which == 0, which == 1],
                      [encode(~is_e, colour, orientation), encode(is_e, new_colour, orientation)],
                      encode(is_e, colour, new_orientation))


class SequentialComparison(ScreenTask):
    """The sequential-comparison level (set size from 1, the staircase's rung)."""

    name = "psychlab_sequential_comparison"
    buttons = SIDE_BUTTONS
    grid = GRID
    grid_kind = "optotype"
    self_paced = True
    end_buttons = END_BUTTONS
    end_half = END_HALF

    def new_trial(self, key: jax.Array, memory: Memory) -> Tuple[Trial, Memory]:
        """Study and test arrays of the staircase's set size; the answer is 0 (different) or 1 (same)."""
        k_domain, k_cells, k_items, k_new, k_which, k_change, k_delay, k_end = jax.random.split(key, 8)
        domain = jax.random.randint(k_domain, (), 0, len(DOMAINS))
        size = jnp.minimum(memory.stair.rung, int(ALLOWED.sum()))
        place = random_cells(k_cells, ALLOWED, size)
        study = jnp.where(place < size, study_items(k_items, domain), -1)
        different = jax.random.bernoulli(k_new)
        target = place == jax.random.randint(k_which, (), 0, size)
        new_code = changed(k_change, jnp.max(jnp.where(target, study, -1)), domain)
        test = jnp.where(target & different, new_code, study)
        delay = jnp.asarray(DELAYS, jnp.int32)[jax.random.randint(k_delay, (), 0, len(DELAYS))]
        trial = blank_trial().replace(study=study, test=test, answer=(~different).astype(jnp.int32), delay=delay,
                                      end_button=jax.random.randint(k_end, (), 0, len(END_BUTTONS)))
        return trial, memory

    def finish(self, key: jax.Array, memory: Memory, trial: Trial, correct) -> Memory:
        """The staircase steps (the set size at most the 33 cells)."""
        stair, _ = staircase_step(memory.stair, correct, int(ALLOWED.sum()), demotes=True)
        return memory.replace(stair=stair)
