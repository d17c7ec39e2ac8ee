"""Play-time script callbacks in the first-person kernel: what a level whose DMLab callbacks keep state runs.

A level compiled from a DMLab script whose ``pickup``/``hasEpisodeFinished`` depend on play (a
pickup counter, an episode that ends after N pickups), or that defines the per-frame and event hooks
``modifyControl``, ``rewardOverride``, ``canTrigger``/``trigger``, ``customDiscreteActions``, ``lookat``, supplies a :class:`ScriptHooks`
object (``compile_lua.dmlab.playtime.DeviceCallbacks`` builds one); ``FirstPersonEnv(bank,
script=hooks)`` carries the script's play-time variables in ``WorldState.script`` and calls the hooks
inside every frame. Levels without hooks carry ``None`` there and run exactly as before.
"""
from __future__ import annotations

from typing import Any, Protocol, Tuple

import jax
import jax.numpy as jnp

from jaxlab.env import select_tree
from jaxlab.kernels.first_person.grid import door_closed
from jaxlab.kernels.first_person.observations import INSTRUCTION
from jaxlab.levels.dmlab import units as C
from jaxlab.render.first_person.raycast import solid_cells


class ScriptHooks(Protocol):
    """Compiled play-time callbacks of one level script (all pure, traceable, static Python objects).

    ``play`` is the script's state pytree; ``inputs`` is :func:`script_inputs`'s pytree.
    """

    #: whether ``can_pickup`` / ``pickup`` / ``episode_finished`` are compiled (else the bank's tables hold them)
    has_can_pickup: bool
    has_pickup: bool
    has_episode_finished: bool
    #: custom observation names ``observe`` gives (the others are the bank's ``Level.custom_obs``)
    observes: Tuple[str, ...]
    #: whether ``screen`` gives the screen messages (else the bank's ``Level.text_*``)
    has_screen: bool
    #: whether ``instruction`` gives the INSTR observation as it plays (else the bank's ``Level.instr``)
    has_instruction: bool
    #: whether ``modify_control`` / ``reward_override`` / ``door_triggers`` are compiled (else not called)
    has_modify_control: bool
    has_reward_override: bool
    has_triggers: bool
    #: whether the hidden platform fires a trigger (``platform_fired``) instead of paying and restarting the map
    has_platform: bool
    #: whether ``look`` is compiled (DMLab's ``lookat``, called every frame with the zone the gaze rests on)
    has_lookat: bool
    #: whether ``textures`` gives live textures (DMLab's ``game:updateTexture``) the level's screens show
    has_textures: bool
    #: the level's custom discrete actions, ``(name, min, max)`` each (empty: none; then
    #: ``custom_discrete_actions`` is not called and the action is DMLab's seven)
    custom_actions: Tuple[Tuple[str, int, int], ...]

    def start(self, level_index, key) -> Any:
        """The play state at the start of an episode of the bank's level ``level_index`` (int32[])."""

    def can_pickup(self, play, inputs, level_index) -> Any:
        """bool[N]: ``api:canPickup(id)`` of each of the bank level's pickups (nil: true)."""

    def pickup(self, play, inputs, level_index, index) -> Tuple[Any, Any, Any, Any]:
        """``api:pickup(id)`` for the bank level's pickup ``index`` (int32[]): (play, respawn float32[]
        seconds (<= 0: gone until the map restarts), score float32[] added, finish bool[] map ends)."""

    def episode_finished(self, play, inputs, seconds) -> Tuple[Any, Any, Any, Any]:
        """``api:hasEpisodeFinished(seconds)``: (play, ended bool[], score float32[], finish bool[])."""

    def observe(self, play, inputs, name: str) -> Any:
        """``api:customObservation(name)``: an array of as many elements as ``Level.custom_obs[name]``."""

    def instruction(self, play, inputs) -> Any:
        """int32[INSTRUCTION_LENGTH]: the instruction's tokens now (``levels.dmlab.instructions``)."""

    def screen(self, play, inputs) -> dict:
        """``api:screenMessages(args)``: ``Level``'s ``text_chars``/``text_pos``/``text_align``/``text_valid``."""

    def modify_control(self, play, inputs, action) -> Tuple[Any, Any, Any, Any]:
        """``api:modifyControl(actions)`` of the frame's action (float32[7], DMLab's layout): (play, the
        action to apply float32[7], score float32[] added, finish bool[] map ends)."""

    def custom_discrete_actions(self, play, inputs, values) -> Tuple[Any, Any, Any]:
        """``api:customDiscreteActions(actions)`` of the agent step's custom action values (int32[K]): (play,
        score float32[] added, finish bool[] map ends)."""

    def reward_override(self, play, inputs, level_index, index) -> Tuple[Any, Any, Any]:
        """``api:rewardOverride(kwargs)`` for the bank level's taken pickup ``index``: (play, float32[]
        reward added to the pickup's class reward, finish bool[])."""

    def door_triggers(self, play, inputs, level_index, zone, fps: int) -> Tuple[Any, Any, Any, Any]:
        """``api:canTrigger``/``api:trigger`` of the door triggers the player is in (``zone`` bool[D]):
        (play, open bool[D] (the door may open), score float32[], finish bool[])."""

    def platform_fired(self, play, inputs, level_index, fire) -> Tuple[Any, Any, Any]:
        """``api:canTrigger``/``api:trigger`` of the hidden platform's trigger when ``fire`` (bool[]):
        (play, score float32[], finish bool[])."""

    def look(self, play, inputs, level_index) -> Tuple[Any, Any, Any]:
        """``api:lookat`` of the frame's gaze on bank level ``level_index``'s lookat zones, at the player of
        ``inputs`` after the frame's move: (play, score float32[], finish bool[])."""

    def textures(self, play) -> Any:
        """uint8[T, h, w, 3]: the script's live textures (RGB) as ``play`` holds them; ``Level.screen_texture``
        indexes them."""

    def script_error(self, play) -> Any:
        """bool[]: a failed ``assert`` or Lua's ``error`` has run in a play-time callback this episode; None for a
        script whose compiled callbacks have no such site."""

    def map_restart(self, play, level_index, restart) -> Any:
        """``play`` after the map restarts when ``restart`` (bool[]): the variables ``updateSpawnVars`` sets
        as the map loads back at their episode-start values."""


def script_inputs(pos, z, vel, yaw, pitch, frames, fps: int, score, crouch=False, look_rate=(0.0, 0.0),
                  teleported=False, walls=None) -> dict:
    """The engine values a compiled callback may read: ``episode_time`` (float32[] seconds: ``frames / fps``),
    ``player`` (``game:playerInfo()``: ``pos`` (x, y, z) units, ``vel`` (x, y, z) units/s, ``angles`` (pitch,
    yaw, roll) degrees, ``anglesVel`` (their rates, degrees/s, from ``look_rate`` float32[2] (pitch, yaw)),
    ``eyePos`` (``pos`` raised by the eye height, ``crouch`` bool[] lowering it) units, all float32[3];
    ``height`` float32[] the eye height, units; ``teleported`` bool[] a teleport moved the player this frame;
    ``score`` float32[] the episode's return) and ``walls`` (``game:raycast``: ``(solid bool[Hm, Wm],
    rows int32[])``, the level's walls and closed doors; a 1x1 open grid when None)."""
    f = jnp.float32
    height = jnp.where(crouch, C.CROUCH_EYE_HEIGHT, C.EYE_HEIGHT).astype(f)
    feet = jnp.stack([pos[0], pos[1], z]).astype(f)
    rates = jnp.asarray(look_rate, f)
    if walls is None:
        walls = (jnp.zeros((1, 1), bool), jnp.int32(1))
    return {"episode_time": jnp.asarray(frames, f) / fps,
            "player": {"pos": feet, "vel": jnp.stack([vel[0], vel[1], f(0.0)]).astype(f),
                       "angles": jnp.stack([pitch, yaw, f(0.0)]).astype(f),
                       "anglesVel": jnp.stack([rates[0], rates[1], f(0.0)]), "height": height,
                       "eyePos": feet + jnp.stack([f(0.0), f(0.0), height]),
                       "teleported": jnp.asarray(teleported, bool), "score": jnp.asarray(score, f)},
            "walls": (jnp.asarray(walls[0], bool), jnp.asarray(walls[1], jnp.int32))}


def level_walls(level, door_open) -> tuple:
    """``(solid bool[Hm, Wm], rows int32[])``: the cells of ``level`` a ray stops at (walls, and the doors
    that ``door_open`` float32[D] (0 shut .. 1 open) does not show fully open), for :func:`script_inputs`."""
    return solid_cells(level.cells, level.door_index, door_closed(door_open)), level.rows


def state_inputs(state, frames, fps: int, level=None) -> dict:
    """:func:`script_inputs` of a ``WorldState`` at frame count ``frames`` (int32[]); ``level`` gives the
    walls (None: none)."""
    return script_inputs(state.pos, state.z, state.vel, state.yaw, state.pitch, frames, fps, state.episode_return,
                         state.crouch, state.look_rate, False,
                         None if level is None else level_walls(level, state.door_open))


def run_pickups(hooks: ScriptHooks, play, inputs, level_index, taken, respawn_frames, fps: int):
    """Call ``hooks.pickup`` (when compiled) and then ``hooks.reward_override`` (when compiled) for each
    ``taken`` pickup (bool[N]) in index order.

    ``respawn_frames``: int32[N] the waits ``collect`` set. Returns (play, wait int32[N] with the taken
    pickups' respawn times from the callback (-1: gone), score float32[], finish bool[])."""
    def one(i, carry):
        play, wait, score, finish = carry
        new, add, ends = play, jnp.float32(0.0), jnp.bool_(False)
        frames = wait[i]
        if hooks.has_pickup:
            new, seconds, add, ends = hooks.pickup(new, inputs, level_index, i)
            frames = jnp.where(seconds > 0, jnp.round(seconds * fps), -1).astype(jnp.int32)
        if hooks.has_reward_override:
            new, change, overridden = hooks.reward_override(new, inputs, level_index, i)
            add, ends = add + change, ends | overridden
        on = taken[i]
        play = select_tree(on, new, play)
        return (play, wait.at[i].set(jnp.where(on, frames, wait[i])), score + jnp.where(on, add, 0.0),
                finish | (on & ends))

    init = (play, respawn_frames, jnp.float32(0.0), jnp.bool_(False))
    return jax.lax.fori_loop(0, taken.shape[0], one, init)


def script_controls(hooks: ScriptHooks, state, level, action, fps: int):
    """The action a frame of ``state`` (a ``WorldState``) applies: ``action`` (float32[7]) through
    ``hooks.modify_control`` when compiled, at the frame's start (``level``: its walls, for ``raycast``).
    Returns (play, action float32[7], score float32[], finish bool[])."""
    if not hooks.has_modify_control:
        return state.script, action, jnp.float32(0.0), jnp.bool_(False)
    inputs = state_inputs(state, state.frames, fps, level)
    return hooks.modify_control(state.script, inputs, action)


def script_custom_actions(hooks: ScriptHooks, state, level, values, fps: int):
    """``hooks.custom_discrete_actions`` of an agent step's custom action values (int32[K]) on ``state`` (a
    ``WorldState``), as DMLab calls it before the step's frames (``level``: its walls, for ``raycast``); an
    episode that is over stays as it is. Returns (state, score float32[], finish bool[]): the score and map
    end its ``game:addScore``/``game:finishMap`` leave for the step's first frame (``frame``'s ``pending``)."""
    play, score, finish = hooks.custom_discrete_actions(state.script, state_inputs(state, state.frames, fps, level),
                                                        values)
    running = ~state.done
    play = select_tree(running, play, state.script)
    return state.replace(script=play), jnp.where(running, score, 0.0), running & finish


def script_doors(hooks: ScriptHooks, play, state, level, zone, door_lock, fps: int):
    """The doors' locks as the door triggers leave them this frame: ``door_lock`` (int32[D]) with the doors
    whose last trigger firing kept them shut at -1, after ``hooks.door_triggers`` of the triggers the player
    of ``state`` is in (``zone`` bool[D]; the clock reads the frame's end, as for pickups; ``level``: its walls).
    Returns (play, lock int32[D], score float32[], finish bool[])."""
    if not hooks.has_triggers:
        return play, door_lock, jnp.float32(0.0), jnp.bool_(False)
    inputs = state_inputs(state, state.frames + 1, fps, level)
    play, opens, score, finish = hooks.door_triggers(play, inputs, state.level_index, zone, fps)
    return play, jnp.where(opens, door_lock, -1), score, finish


def script_observations(hooks: ScriptHooks, state, level, names, fps: int, view=None) -> dict:
    """The compiled custom observations among ``names`` of ``state`` (a ``WorldState``), each cast and
    shaped as the level's tabulated ``custom_obs[name]`` (its value at the episode's start), and ``INSTR``
    (int32[INSTRUCTION_LENGTH]) when the instruction is compiled. ``view``: ``view(pos, look, width, height)``
    -> uint8[height, width, 3], the level drawn from another eye (``game:renderCustomView``;
    ``observations.custom_view``), given to the callbacks as ``inputs["view"]``."""
    inputs = dict(state_inputs(state, state.frames, fps, level), view=view)
    out = {}
    for name in names:
        if hooks.has_instruction and name == INSTRUCTION:
            out[name] = jnp.asarray(hooks.instruction(state.script, inputs), jnp.int32)
        elif name in hooks.observes:
            like = level.custom_obs[name]
            value = jnp.asarray(hooks.observe(state.script, inputs, name))
            if like.dtype == jnp.uint8:
                value = jnp.clip(value, 0, 255)
            out[name] = value.astype(like.dtype).reshape(like.shape)
    return out


def script_screen(hooks: ScriptHooks, state, level, fps: int):
    """``level`` with the screen messages ``hooks.screen`` shows in ``state`` (a ``WorldState``)."""
    inputs = state_inputs(state, state.frames, fps)
    return level.replace(**hooks.screen(state.script, inputs))
