"""What the DMLab-30 PsychLab env shows: the screen's slots and grid for a state, the look angles'
gaze point on the screen, and every DMLab first-person observation made from the frame.

The look is (right, up) degrees from facing the screen's normal; the gaze point is where the view's
centre meets the screen's plane (``gaze_point``), and the frame is the window of that plane a 90°
field of view shows around it (panned, not re-projected: the screen is flat and near square-on).
"""
from __future__ import annotations

from typing import Dict, Sequence

import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.first_person.observations import INSTRUCTION, canonical
from jaxlab.levels.dmlab.dmlab30 import psychlab_screen as ps
from jaxlab.levels.dmlab.instructions import INSTRUCTION_LENGTH
from jaxlab.levels.dmlab.psychlab.stimuli import KIND_IMAGE, KIND_NONE, KIND_TILE
from jaxlab.render import DEPTH_UNITS
from jaxlab.render.psychlab import dmlab30_tiles as tiles
from jaxlab.render.psychlab.screen import DMLAB30_TILE, Grid, Slots, render_screen

#: the eye's distance to the screen in screen units, and the gaze's height at a level look
DISTANCE = ps.EYE_DISTANCE_UNITS / ps.UNITS_PER_SCREEN_UNIT
LEVEL_GAZE_Y = -ps.EYE_BELOW_CENTRE_UNITS / ps.UNITS_PER_SCREEN_UNIT
#: the frame's half width on the screen's plane (screen units)
VIEW_HALF_WIDTH = DISTANCE * float(np.tan(np.deg2rad(ps.FIELD_OF_VIEW / 2)))
#: the depth channel: the screen's distance in DMLab's depth steps
DEPTH = int(np.clip(np.round(ps.EYE_DISTANCE_UNITS / DEPTH_UNITS), 0, 255))
#: DEBUG.POS.TRANS: the agent's place in DMLab's PsychLab room (x, y units; z: on the floor)
POSITION = (0.0, -32.0, 0.0)
#: DEBUG.POS.ROT's yaw when facing the screen (DMLab's spawn angle)
FACING_YAW = 90.0
WHITE = DMLAB30_TILE + tiles.WHITE_TILE


def gaze_point(look) -> jnp.ndarray:
    """float32[2]: the screen point (x right, y up; screen units) at the view's centre for look angles
    ``look`` (float32[2]: degrees right, up)."""
    t = jnp.tan(jnp.deg2rad(look))
    return jnp.stack([DISTANCE * t[0], DISTANCE * t[1] + LEVEL_GAZE_Y])


def button_colours(phase, hovered, trial: ps.Trial, reveals_all) -> jnp.ndarray:
    """int32[MAX_BUTTONS]: each response button's ``BUTTON_*`` look: while one is hovered it is green if
    right, red if wrong (with ``reveals_all`` every button shows so); before, the hint's dull colours
    where the trial has one, else black."""
    right = jnp.arange(ps.MAX_BUTTONS) == trial.answer
    judged = jnp.where(right, ps.BUTTON_GREEN, ps.BUTTON_RED)
    shown = reveals_all | (jnp.arange(ps.MAX_BUTTONS) == hovered)
    hinted = jnp.where(trial.hint, jnp.where(right, ps.BUTTON_DULL_GREEN, ps.BUTTON_DULL_RED), ps.BUTTON_BLACK)
    return jnp.where((phase == ps.RESPOND) & (hovered >= 0), jnp.where(shown, judged, ps.BUTTON_BLACK), hinted)


def screen_items(layout: Dict[str, jnp.ndarray], phase, hovered, trial: ps.Trial):
    """(Slots (7: the fixation cross, the image, the end-study button, 4 response buttons), Grid) of
    one level's screen: ``layout`` its ``Layout`` row, ``phase``/``hovered`` (int32[]) the state's."""
    respond, study = phase == ps.RESPOND, phase == ps.STUDY
    buttons = button_colours(phase, hovered, trial, layout["reveals_all"])
    end_tile = jnp.where(hovered >= 0, tiles.END_FILLED_TILE, tiles.END_FRAMED_TILE)

    def tile(shown, t):
        return jnp.where(shown, KIND_TILE, KIND_NONE), DMLAB30_TILE + t

    kind_ident = [tile(phase == ps.FIXATE, tiles.FIXATION_TILE),
                  (jnp.where(respond & (trial.image >= 0), KIND_IMAGE, KIND_NONE), trial.image),
                  tile(study, end_tile)]
    kind_ident += [tile(respond & layout["button_real"][b], tiles.BUTTON_TILES + buttons[b])
                   for b in range(ps.MAX_BUTTONS)]
    kind, ident = (jnp.stack([jnp.asarray(k, jnp.int32) for k in column]) for column in zip(*kind_ident))
    slots = Slots(
        centre=jnp.concatenate([jnp.zeros((2, 2), jnp.float32), layout["end_buttons"][trial.end_button][None],
                                layout["buttons"]]),
        half=jnp.concatenate([jnp.stack([jnp.float32(ps.FIXATION_HALF), layout["image_half"], layout["end_half"]]),
                              jnp.full((ps.MAX_BUTTONS,), ps.BUTTON_HALF, jnp.float32)]),
        kind=kind, ident=ident)
    cells = jnp.where(study, trial.study, jnp.where(respond, trial.test, -1))
    grid = Grid(corner=layout["grid"][:2], cell=layout["grid"][2],
                tiles=jnp.where(cells >= 0, layout["item_tile"] + cells, -1).astype(jnp.int32))
    return slots, grid


def frame(slots: Slots, grid: Grid, gaze, width: int, height: int) -> jnp.ndarray:
    """uint8[H, W, 3]: the screen around gaze point ``gaze`` (float32[2]), DMLab's field of view, no
    reticle."""
    return render_screen(slots, gaze, width, height, grid=grid, screen_half=(1.0, 1.0),
                         view_half=(VIEW_HALF_WIDTH, VIEW_HALF_WIDTH * height / width), screen_tile=WHITE,
                         reticle=False)


def observations(names: Sequence[str], rgb, look, rate, seconds_left) -> Dict[str, jnp.ndarray]:
    """The named DMLab observations (``first_person.observations.observation_specs``' specs) from the
    frame ``rgb`` (uint8[H, W, 3]): the images with depth ``DEPTH``, BGR orders and the debug cameras
    (the frame); VEL.TRANS zeros; VEL.ROT (pitch, yaw, roll) degrees/s from ``rate`` (float32[2]:
    degrees/s right, up); DEBUG.POS.TRANS ``POSITION``; DEBUG.POS.ROT (pitch, yaw, roll) degrees from
    ``look`` (float32[2]: degrees right, up; DMLab's pitch is positive looking down); FRAMES_REMAINING_AT_60 [1] from ``seconds_left``
    (float32[]); INSTR int32[INSTRUCTION_LENGTH] zeros."""
    depth = jnp.full(rgb.shape[:2] + (1,), DEPTH, jnp.uint8)
    zero = jnp.float32(0.0)
    made = {
        "RGB_INTERLEAVED": lambda: rgb, "RGBD_INTERLEAVED": lambda: jnp.concatenate([rgb, depth], -1),
        "RGB": lambda: jnp.moveaxis(rgb, -1, 0), "RGBD": lambda: jnp.moveaxis(jnp.concatenate([rgb, depth], -1), -1, 0),
        "BGR_INTERLEAVED": lambda: rgb[..., ::-1],
        "BGRD_INTERLEAVED": lambda: jnp.concatenate([rgb[..., ::-1], depth], -1),
        "VEL.TRANS": lambda: jnp.zeros((3,), jnp.float32),
        "VEL.ROT": lambda: jnp.stack([-rate[1], -rate[0], zero]),
        "DEBUG.POS.TRANS": lambda: jnp.asarray(POSITION, jnp.float32),
        "DEBUG.POS.ROT": lambda: jnp.stack([-look[1], FACING_YAW - look[0], zero]),
        "FRAMES_REMAINING_AT_60": lambda: jnp.maximum(jnp.round(seconds_left * 60.0), 0.0).reshape(1),
        INSTRUCTION: lambda: jnp.zeros((INSTRUCTION_LENGTH,), jnp.int32),
    }
    out = {}
    for name in names:
        base = canonical(name)
        if base.startswith("DEBUG.CAMERA"):
            out[name] = jnp.moveaxis(rgb, -1, 0) if base.startswith("DEBUG.CAMERA.") else rgb
        else:
            out[name] = made[base]()
    return out
