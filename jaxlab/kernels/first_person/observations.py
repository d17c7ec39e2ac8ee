"""First-person observations with DMLab's names, computed only when asked for."""
from __future__ import annotations

from typing import Dict, Iterable, Mapping, Optional, Sequence, Tuple

import jax.numpy as jnp
import numpy as np

from jaxlab.errors import unknown_name_error
from jaxlab.kernels.first_person.grid import door_closed
from jaxlab.kernels.first_person.pickups import pickup_positions, present
from jaxlab.kernels.first_person.state import WorldState
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.instructions import INSTRUCTION_LENGTH, vocabulary
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.object_catalogue import KEY_RGB
from jaxlab.levels.dmlab.pickup_types import FIRST_PLAYER_KIND
from jaxlab.render import Camera, render_first_person, render_top_down_camera
from jaxlab.types import ArraySpec, BoundedArraySpec

IMAGE_OBSERVATIONS = ("RGB_INTERLEAVED", "RGBD_INTERLEAVED", "RGB", "RGBD", "BGR_INTERLEAVED", "BGRD_INTERLEAVED")
#: DMLab's debug cameras (uint8, the frame's size): planar (3, H, W) ``DEBUG.CAMERA.*`` and interleaved
#: (H, W, 3) ``DEBUG.CAMERA_INTERLEAVED.*``; the player's views are the frame without the held key's square
CAMERA_OBSERVATIONS = tuple(f"DEBUG.{camera}.{view}" for camera in ("CAMERA", "CAMERA_INTERLEAVED")
                            for view in ("TOP_DOWN", "PLAYER_VIEW", "PLAYER_VIEW_NO_RETICLE"))
VECTOR_OBSERVATIONS = ("VEL.TRANS", "VEL.ROT", "DEBUG.POS.TRANS", "DEBUG.POS.ROT", "FRAMES_REMAINING_AT_60")
#: vector observations of another length than 3
VECTOR_SIZES = {"FRAMES_REMAINING_AT_60": 1}
#: DMLab's instruction: on the device int32[INSTRUCTION_LENGTH] token ids (``levels.dmlab.instructions``), its spec
#: bounded by the level's largest token id
INSTRUCTION = "INSTR"
ALIASES = {"RGB_INTERLACED": "RGB_INTERLEAVED"}
OBSERVATION_NAMES = (IMAGE_OBSERVATIONS + CAMERA_OBSERVATIONS + VECTOR_OBSERVATIONS + (INSTRUCTION,)
                     + tuple(ALIASES))
RETICLE = (3, 200)   # DMLab's player view: a 3-pixel grey square at the centre


def canonical(name: str, custom: Iterable[str] = ()) -> str:
    """The observation's canonical name; UnknownNameError with suggestions if unknown.

    ``custom``: the names of the level's custom observations, accepted as they are.
    """
    custom = tuple(custom)
    if name in custom:
        return name
    if name not in OBSERVATION_NAMES:
        raise unknown_name_error("observation", name, OBSERVATION_NAMES + custom)
    return ALIASES.get(name, name)


def custom_specs(levels: Level) -> Dict[str, ArraySpec]:
    """Specs of a bank's custom observations: shape without the bank axis,
    dtype uint8 ("bytes") or float32 ("doubles"). ValueError if a custom name
    is also a built-in observation name."""
    clash = sorted(set(levels.custom_obs) & set(OBSERVATION_NAMES))
    if clash:
        raise ValueError(f"custom observation names {clash} clash with built-in observations")
    return {name: ArraySpec(shape=tuple(a.shape[1:]), dtype=np.dtype(a.dtype).type, name=name)
            for name, a in sorted(levels.custom_obs.items())}


def observation_specs(names: Sequence[str], width: int, height: int,
                      custom: Optional[Mapping[str, ArraySpec]] = None,
                      instruction_words: Sequence[str] = ()) -> Dict[str, ArraySpec]:
    """Specs of the named observations for frames of ``width``×``height`` pixels.

    ``custom``: name -> ArraySpec of the level's custom observations (``custom_specs``).
    ``instruction_words``: the level's own instruction words (``instructions.level_words``); INSTR's spec
    is bounded by the largest token id, ``len(vocabulary(instruction_words)) - 1`` (an embedding table's size
    minus one).
    """
    custom = custom or {}
    shapes = {
        "RGB_INTERLEAVED": (height, width, 3), "RGBD_INTERLEAVED": (height, width, 4),
        "RGB": (3, height, width), "RGBD": (4, height, width),
        "BGR_INTERLEAVED": (height, width, 3), "BGRD_INTERLEAVED": (height, width, 4),
    }
    shapes.update({n: (3, height, width) if n.startswith("DEBUG.CAMERA.") else (height, width, 3)
                   for n in CAMERA_OBSERVATIONS})
    specs = {}
    for name in names:
        base = canonical(name, custom)
        if base in custom:
            specs[name] = custom[base]
        elif base in shapes:
            specs[name] = ArraySpec(shape=shapes[base], dtype=np.uint8, name=name)
        elif base == INSTRUCTION:
            specs[name] = BoundedArraySpec(shape=(INSTRUCTION_LENGTH,), dtype=np.int32, name=name, minimum=0,
                                           maximum=len(vocabulary(instruction_words)) - 1)
        else:
            specs[name] = ArraySpec(shape=(VECTOR_SIZES.get(base, 3),), dtype=np.float32, name=name)
    return specs


PLAYER_REWARD = "REWARD"


def per_player(names: Sequence[str]) -> Dict[int, Dict[str, str]]:
    """Player n (1-based) -> {name: its base name} of observation names that start with ``"n."``."""
    out: Dict[int, Dict[str, str]] = {}
    for name in names:
        head, _, base = name.partition(".")
        out.setdefault(int(head), {})[name] = base
    return out


def player_specs(names: Sequence[str], players: int, width: int, height: int,
                 custom: Optional[Mapping[str, ArraySpec]] = None,
                 instruction_words: Sequence[str] = ()) -> Dict[str, ArraySpec]:
    """``observation_specs`` of an env with ``players`` learning players: with more than one, every name
    takes a player prefix ``"n."`` (1 <= n <= players) before a first-person observation name or
    ``"REWARD"`` (float32[], the player's score change in the step); ValueError otherwise."""
    if players == 1:
        return observation_specs(names, width, height, custom, instruction_words)
    specs = {}
    for name in names:
        head, dot, base = name.partition(".")
        if not (dot and head.isdigit() and 1 <= int(head) <= players):
            raise ValueError(f"observation {name!r}: with players={players} a name starts with the player, "
                             f"1..{players}, as in '1.RGB_INTERLEAVED' or '2.REWARD'")
        if base == PLAYER_REWARD:
            specs[name] = ArraySpec(shape=(), dtype=np.float32, name=name)
        else:
            specs[name] = observation_specs([base], width, height, custom, instruction_words)[base].replace(name=name)
    return specs


def player_reward(state: WorldState) -> jnp.ndarray:
    """float32[]: the agent's score change since its agent step began (a level with bots)."""
    return (state.arena.score[0] - state.arena.step_score[0]).astype(jnp.float32)


def camera(state: WorldState) -> Camera:
    """The player's eye: position, eye height (crouch and jump included), yaw, pitch."""
    eye = jnp.where(state.crouch, C.CROUCH_EYE_HEIGHT, C.EYE_HEIGHT) + state.z
    return Camera(pos=state.pos, eye_z=eye, yaw=state.yaw, pitch=state.pitch)


def _vectors(level: Level, state: WorldState, fps: int) -> Dict[str, jnp.ndarray]:
    """Name -> thunk of each vector observation of ``state`` (float32: VEL.TRANS (forward, left, up) units/s,
    VEL.ROT (pitch, yaw, roll) degrees/s, DEBUG.POS.TRANS units, DEBUG.POS.ROT degrees, FRAMES_REMAINING_AT_60
    [1]: the frames at 60 per second left before the level's time limit, as DMLab counts them)."""
    rad = jnp.deg2rad(state.yaw)
    forward = jnp.stack([jnp.cos(rad), jnp.sin(rad)])
    left = jnp.stack([-jnp.sin(rad), jnp.cos(rad)])
    zero = jnp.float32(0.0)
    return {
        "VEL.TRANS": lambda: jnp.stack([state.vel @ forward, state.vel @ left, state.vz]),
        "VEL.ROT": lambda: jnp.stack([state.look_rate[0], state.look_rate[1], zero]),
        "DEBUG.POS.TRANS": lambda: jnp.stack([state.pos[0], state.pos[1], state.z]),
        "DEBUG.POS.ROT": lambda: jnp.stack([state.pitch, state.yaw, zero]),
        "FRAMES_REMAINING_AT_60": lambda: jnp.maximum(
            jnp.round((jnp.asarray(level.episode_seconds, jnp.float32) - state.frames / jnp.float32(fps)) * 60.0),
            0.0).reshape(1),
    }


def held_key_square(frame: jnp.ndarray, held_key) -> jnp.ndarray:
    """``frame`` uint8[H, W, C] with the held key's colour as a filled square near the top-left
    corner, as DMLab draws it (a 48-pixel square 12 pixels in at 320x240, scaled with the width);
    unchanged when ``held_key`` (int32[], 1..NUM_KEY_COLOURS) is 0. Only the RGB channels change."""
    height, width = frame.shape[:2]
    inset, side = max(1, round(width * 12 / 320)), max(2, round(width * 48 / 320))
    y1, x1 = min(height, inset + side), min(width, inset + side)
    colours = jnp.asarray((0, 0, 0) + sum(KEY_RGB, ()), jnp.uint8).reshape(-1, 3)
    colour = colours[jnp.clip(held_key, 0, colours.shape[0] - 1)]
    patch = frame[inset:y1, inset:x1, :3]
    patch = jnp.where(held_key > 0, jnp.broadcast_to(colour, patch.shape), patch)
    return frame.at[inset:y1, inset:x1, :3].set(patch)


def _camera_layout(name: str, image: jnp.ndarray) -> jnp.ndarray:
    """uint8 ``image`` [H, W, 3] as debug camera ``name`` gives it: planar [3, H, W] for ``DEBUG.CAMERA.*``."""
    return jnp.moveaxis(image, -1, 0) if name.startswith("DEBUG.CAMERA.") else image


def _with_reticle(view: jnp.ndarray) -> jnp.ndarray:
    """uint8 ``view`` [H, W, 3] with DMLab's reticle: a grey square of ``RETICLE[0]`` pixels whose first row
    and column are half the height and width less half its side (DMLab's 1-based narrow, as 0-based)."""
    side, grey = RETICLE
    height, width = view.shape[:2]
    top, left = max(height // 2 - side // 2 - 1, 0), max(width // 2 - side // 2 - 1, 0)
    return view.at[top:top + side, left:left + side].set(jnp.uint8(grey))


def as_player(state: WorldState, i: int) -> WorldState:
    """``state`` seen from player ``i`` (static, 0-based) of a level with bots: its body becomes the agent's
    (pos, vel, z, yaw, pitch; no crouch, jump or look rate for the others) and the arena's rows 0 and ``i``
    change places, so ``observe`` gives player ``i``'s view with everyone else drawn. ``i`` 0: ``state``."""
    if i == 0:
        return state
    arena = state.arena
    b = i - 1

    def swap(a):
        return a.at[jnp.asarray([0, i])].set(a[jnp.asarray([i, 0])])

    per_row = ("playing", "up", "down_frames", "shield", "armour", "gadget", "charges", "cooldown", "score",
               "step_score", "look", "bot", "shot_from", "shot_to", "fired", "shot_gadget", "tagged_by")
    rows = {f: swap(getattr(arena, f)) for f in per_row}
    arena = arena.replace(pos=arena.pos.at[b].set(state.pos), vel=arena.vel.at[b].set(state.vel),
                          yaw=arena.yaw.at[b].set(state.yaw), pitch=arena.pitch.at[b].set(state.pitch), **rows)
    zero = jnp.float32(0.0)
    return state.replace(pos=state.arena.pos[b], vel=state.arena.vel[b], z=zero, vz=zero, yaw=state.arena.yaw[b],
                         pitch=state.arena.pitch[b], crouch=jnp.bool_(False), look_rate=jnp.zeros(2, jnp.float32),
                         arena=arena)


def sprites(level: Level, state: WorldState):
    """What the agent's frame draws as sprites: (level whose ``pickup_kind`` lists them, pos float32[M, 2],
    present bool[M]): the pickups, then, in a level with bots, the other players in play in their colours."""
    pos, shown = pickup_positions(level, state.goal_choice), present(level, state.pickup_wait)
    arena = state.arena
    if arena is None:
        return level, pos, shown
    kinds = FIRST_PLAYER_KIND + arena.look[1:]
    drawn = level.replace(pickup_kind=jnp.concatenate([level.pickup_kind, kinds]),
                          pickup_scale=jnp.concatenate([level.pickup_scale, jnp.ones(kinds.shape, jnp.float32)]))
    return drawn, jnp.concatenate([pos, arena.pos]), jnp.concatenate([shown, arena.playing[1:] & arena.up[1:]])


def custom_view(level: Level, state: WorldState, pos, look, width: int, height: int, flat_too: bool = False,
                ground: Optional[str] = None, masks: bool = True) -> jnp.ndarray:
    """DMLab's ``game:renderCustomView``: uint8[height, width, 3], the level as ``state`` shows it (pickups,
    doors, theme; not the held key's square nor screen text) seen from the eye at ``pos`` float32[3] (x, y, z
    units) looking along ``look`` float32[3] (pitch, yaw, roll degrees, as ``game:playerInfo().angles`` reads
    them: the player's own ``angles`` give the player's view; jaxlab draws no roll). ``flat_too``,
    ``ground``, ``masks``: static, as for :func:`observe`."""
    drawn, sprite_pos, sprite_present = sprites(level.replace(text_valid=jnp.zeros_like(level.text_valid)), state)
    eye = Camera(pos=jnp.asarray(pos[:2], jnp.float32), eye_z=jnp.asarray(pos[2], jnp.float32),
                 yaw=jnp.asarray(look[1], jnp.float32), pitch=jnp.asarray(look[0], jnp.float32))
    frame = render_first_person(drawn, eye, door_closed(state.door_open), sprite_pos, sprite_present,
                                width=width, height=height, with_depth=False, door_lock=state.door_lock,
                                theme=jnp.where(state.switched, level.switch_theme, level.theme),
                                flat_too=flat_too, ground=ground, masks=masks)
    return frame[..., :3]


def observe(level: Level, state: WorldState, names: Tuple[str, ...], width: int, height: int,
            flat_too: bool = False, ground: Optional[str] = None, fps: int = C.DEFAULT_FPS, masks: bool = True,
            screens=None):
    """Compute the named observations (see ``observation_specs``) of ``state``.

    Frames are rendered once per call (the held key, if any, drawn as a square in the top-left
    corner), with depth only when an RGBD or BGRD
    observation is asked for (BGR_INTERLEAVED and BGRD_INTERLEAVED: the colour channels in DMLab's
    reversed order). Vectors: VEL.TRANS (forward, left, up) units/s;
    VEL.ROT (pitch, yaw, roll) degrees/s; DEBUG.POS.TRANS (x, y, z) units;
    DEBUG.POS.ROT (pitch, yaw, roll) degrees; FRAMES_REMAINING_AT_60 [1] the frames at 60 per
    second before the time limit (``fps``: the env's frames per second); INSTR int32[INSTRUCTION_LENGTH]
    the level's instruction tokens (``instruction``). Debug cameras
    (``CAMERA_OBSERVATIONS``, uint8 at the frame's size): TOP_DOWN the level from above
    (``render_top_down_camera``), PLAYER_VIEW the frame without the held key's square, with DMLab's
    reticle, PLAYER_VIEW_NO_RETICLE without it. A name of one of the level's
    custom observations gives ``level.custom_obs[name]`` (this episode's array). ``flat_too``
    (static): the batch mixes flat levels with levels of heights; ``ground`` (static): the kind of
    ground every level with heights stands on, if known (``render_first_person``); ``screens``: the level
    script's live textures, uint8[T, h, w, 3], that the level's screens show (None: none).
    """
    bases = {name: canonical(name, level.custom_obs) for name in names}
    out = {}
    views = [b for b in bases.values() if b.endswith("PLAYER_VIEW") or b.endswith("PLAYER_VIEW_NO_RETICLE")]
    if any(b in IMAGE_OBSERVATIONS for b in bases.values()) or views:
        with_depth = any(b.startswith(("RGBD", "BGRD")) for b in bases.values())
        drawn, sprite_pos, sprite_present = sprites(level, state)
        frame = render_first_person(
            drawn, camera(state), door_closed(state.door_open), sprite_pos, sprite_present,
            width=width, height=height, with_depth=with_depth,
            door_lock=state.door_lock, theme=jnp.where(state.switched, level.switch_theme, level.theme),
            flat_too=flat_too, ground=ground, masks=masks, screens=screens)
        view = frame[..., :3]
        frame = held_key_square(frame, state.held_key)
        images = {
            "RGB_INTERLEAVED": lambda: frame[..., :3],
            "RGBD_INTERLEAVED": lambda: frame,
            "RGB": lambda: jnp.moveaxis(frame[..., :3], -1, 0),
            "RGBD": lambda: jnp.moveaxis(frame, -1, 0),
            "BGR_INTERLEAVED": lambda: frame[..., 2::-1],
            "BGRD_INTERLEAVED": lambda: jnp.concatenate([frame[..., 2::-1], frame[..., 3:]], axis=-1),
        }
        out.update({n: images[b]() for n, b in bases.items() if b in images})
        out.update({n: _camera_layout(b, _with_reticle(view) if b.endswith("PLAYER_VIEW") else view)
                    for n, b in bases.items() if b in views})
    if any(b.endswith("TOP_DOWN") for b in bases.values()):
        drawn, sprite_pos, sprite_present = sprites(level, state)
        above = render_top_down_camera(drawn, state.pos, state.yaw, sprite_pos, sprite_present,
                                       door_closed(state.door_open), width=width, height=height)
        out.update({n: _camera_layout(b, above) for n, b in bases.items() if b.endswith("TOP_DOWN")})
    vectors = _vectors(level, state, fps)
    out.update({n: vectors[b]().astype(jnp.float32) for n, b in bases.items() if b in vectors})
    out.update({n: level.custom_obs[b] for n, b in bases.items() if b in level.custom_obs})
    out.update({n: instruction(level) for n, b in bases.items() if b == INSTRUCTION})
    return out


def instruction(level: Level) -> jnp.ndarray:
    """int32[INSTRUCTION_LENGTH]: the level's instruction tokens (``Level.instr``), padded with 0 (all 0
    for a level without one)."""
    tokens = jnp.asarray(level.instr, jnp.int32)[:INSTRUCTION_LENGTH]
    return jnp.pad(tokens, (0, INSTRUCTION_LENGTH - tokens.shape[0]))
