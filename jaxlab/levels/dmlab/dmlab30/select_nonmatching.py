"""rooms_select_nonmatching_object (DMLab-30): pick the object that is not the one shown.

Two separate rooms (no floor between them). Room 1: the spawn, facing north
towards the display; an example object on one of two display slots
(``takeable=False``: shown, never taken); and a teleport pad between them
(+1, moves the player to room 2's entry, back one frame later so it is there
when the player returns). Room 2: two choice objects, the match (-10) and a
non-match (+10); both are goals, so taking either ends the map and the player
starts again in room 1.

The match object is drawn once per episode from ``looks.NUM_CHOICE_OBJECTS``
objects; every trial (each map restart, ``restart``) redraws the non-match
(always another object), the display slot and the order of the choice slots.

Episode length: DMLab's script sets 12 s, and that is used here. The facts
note flags it against the human score of 65.9; it is not clearly a typo: a
trial pays at most +11 and these rooms are small (about 300 units spawn to
pad and entry to choice, ~1 s each at 320 units/s), so 6 trials fit in 12 s.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, concat_pickups, pickup_set
from jaxlab.levels.dmlab.dmlab30 import looks
from jaxlab.levels.dmlab.dmlab30.room_maps import cells_from_rows, wall_variation
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy

EPISODE_SECONDS = 12.0
TELEPORT_REWARD, MATCH_REWARD, NONMATCH_REWARD = 1.0, -10.0, 10.0

ROOMS = cells_from_rows(["*********",
                         "*   *   *",
                         "*   *   *",
                         "*   *   *",
                         "*   *   *",
                         "*********"])
_R = ROOMS.shape[0]


def _xy(rc, rows) -> np.ndarray:
    """float32[K, 2] world (x, y) units of the centres of the (row, col) cells ``rc``."""
    return np.asarray(cell_centre_xy(np.asarray(rc), rows), np.float32).reshape(-1, 2)


DISPLAY_SLOTS = _xy([(1, 1), (1, 3)], _R)   # room 1: the example object sits on one
PAD = _xy([(1, 2)], _R)                      # room 1: the teleport pad
SPAWN = _xy([(4, 2)], _R)                    # room 1: the player's start, facing north
ENTRY = _xy([(4, 6)], _R)                    # room 2: where the pad leads, facing north
CHOICE_SLOTS = _xy([(1, 5), (1, 7)], _R)     # room 2: the two choice objects
NORTH = 90.0

# Pickup rows: 0, 1 the display slots (the example on one); 2 the pad; 3 the match; 4 the non-match.
EXAMPLES, PAD_ROW, MATCH_ROW, NONMATCH_ROW = slice(0, 2), 2, 3, 4


def trial_level(key: jax.Array, match_kind) -> Level:
    """The Level of one trial whose match object has look ``match_kind`` (int32[]): a fresh
    non-match object, display slot and choice-slot order drawn from ``key``."""
    k_obj, k_show, k_order = jax.random.split(key, 3)
    kinds = looks.choice_object_kind(jnp.arange(looks.NUM_CHOICE_OBJECTS))
    match_index = jnp.argmax(kinds == match_kind)
    other = jax.random.randint(k_obj, (), 0, looks.NUM_CHOICE_OBJECTS - 1)
    nonmatch_kind = kinds[other + (other >= match_index)]
    shown = jax.random.randint(k_show, (), 0, 2)
    swap = jax.random.randint(k_order, (), 0, 2)
    choice = jnp.asarray(CHOICE_SLOTS)
    objects = concat_pickups(
        pickup_set(DISPLAY_SLOTS, match_kind, 0.0, jnp.arange(2) == shown, takeable=False),
        pickup_set(PAD, looks.TELEPORT_PAD_KIND, TELEPORT_REWARD, respawn_frames=1, teleport=0),
        pickup_set(choice[swap], match_kind, MATCH_REWARD, is_goal=True),
        pickup_set(choice[1 - swap], nonmatch_kind, NONMATCH_REWARD, is_goal=True))
    theme = looks.NONMATCH_THEME
    return assemble_level(ROOMS, wall_variation(ROOMS, looks.variation_code(looks.NONMATCH_WALL)),
                          jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool), objects, SPAWN,
                          jnp.ones((1,), bool), EPISODE_SECONDS, spawn_yaw=jnp.full((1,), NORTH),
                          theme=theme, switch_theme=theme, teleport_pos=ENTRY, teleport_yaw=[NORTH])


def match_kind_of(level: Level) -> jnp.ndarray:
    """int32[]: the look of ``level``'s match object (the example shown in room 1)."""
    return level.pickup_kind[MATCH_ROW]


class SelectNonmatchingObject(LevelGenerator):
    """rooms_select_nonmatching_object: the match is drawn per episode, the rest per trial."""

    name = "rooms_select_nonmatching_object"
    redraws_on_restart = True

    def episode(self, key: jax.Array, level_index) -> Level:
        """The first trial of an episode: a match object drawn uniformly from
        ``looks.NUM_CHOICE_OBJECTS``, the trial's draws from ``key`` (``level_index`` unused)."""
        k_match, k_trial = jax.random.split(key)
        match = jax.random.randint(k_match, (), 0, looks.NUM_CHOICE_OBJECTS)
        return trial_level(k_trial, looks.choice_object_kind(match))

    def restart(self, level: Level, key: jax.Array, level_index) -> Level:
        """The next trial after a choice: the same match object, the rest redrawn from ``key``."""
        return trial_level(key, match_kind_of(level))


GENERATORS = {SelectNonmatchingObject.name: SelectNonmatchingObject()}
