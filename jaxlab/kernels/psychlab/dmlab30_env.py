"""PsychlabScreenEnv: DMLab-30's PsychLab levels, any mix of them in one batch, with DMLab's actions
and observations.

The agent sits before the screen (``jaxlab.levels.dmlab.dmlab30.psychlab_screen``) and answers with
its gaze. Its int32[7] DMLab action turns the look by LOOK_LEFT_RIGHT / LOOK_DOWN_UP pixels times
``LOOK_DEGREES_PER_PIXEL`` per frame (positive: right, down, as DMLab's LOOK_DOWN_UP adds to Quake's view
pitch; at most ``LOOK_LIMIT`` degrees off the
screen's normal); moving, strafing, firing, jumping and crouching do nothing (DMLab's PsychLab
factory zeroes them). ``action_repeat`` frames per step, rewards summed, one frame rendered.

Each frame, as DMLab's point-and-click screen does it: the timers tick (the inter-trial wait, the
delay); then the widget under the gaze is found and the level's hover rules apply
(``psychlab_screen``'s docstring). An episode's level is ``state.level_index`` (into ``levels``);
per frame the level's trial draw and its end-of-trial update run through a ``lax.switch`` over the
env's levels, everything else is shared, so one jitted step runs a batch mixing them. Trial ``n``
is drawn from the episode key folded with ``2 n`` (its end-of-trial update with ``2 n + 1``), so
an episode depends on its key alone.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.env import Env, select_tree
from jaxlab.kernels.first_person.observations import observation_specs
from jaxlab.kernels.psychlab import dmlab30_view as view
from jaxlab.levels.dmlab import actions
from jaxlab.levels.dmlab.dmlab30 import psychlab_screen as ps
from jaxlab.levels.dmlab.dmlab30.psychlab import SCREEN_LEVELS
from jaxlab.levels.dmlab.units import LOOK_DEGREES_PER_PIXEL
from jaxlab.render.psychlab.dmlab30_tiles import ITEM_TILES
from jaxlab.render.psychlab.screen import DMLAB30_TILE
from jaxlab.settings import positive_setting

#: the look's largest angle off the screen's normal, each way (degrees)
LOOK_LIMIT = 60.0
#: the spawn's random yaw, each way (degrees; DMLab turns the agent by up to half its 45° range)
SPAWN_YAW = 22.5


@struct.dataclass
class ScreenState:
    """One episode of a DMLab-30 PsychLab level.

    key: the episode's PRNG key; done: bool[] ended; terminated: bool[] ended by the trial cap;
    level_index: int32[] the level (into the env's ``levels``); frames: int32[] frames run; trial:
    int32[] trials answered; phase: int32[] (``psychlab_screen.FIXATE`` ...); timer: int32[] frames
    left of the wait or delay; look: float32[2] degrees right, up; rate: float32[2] the look's turn in
    the last frame (degrees right, up); hovered: int32[] the widget the gaze has been on since its
    hover began (-1: none); memory: the level's ``Memory``; current: the trial's ``Trial``;
    episode_return: float32[] rewards summed.
    """

    key: jnp.ndarray
    done: jnp.ndarray
    terminated: jnp.ndarray
    level_index: jnp.ndarray
    frames: jnp.ndarray
    trial: jnp.ndarray
    phase: jnp.ndarray
    timer: jnp.ndarray
    look: jnp.ndarray
    rate: jnp.ndarray
    hovered: jnp.ndarray
    memory: ps.Memory
    current: ps.Trial
    episode_return: jnp.ndarray


def layout_table(tasks: Sequence[ps.ScreenTask]) -> Dict[str, np.ndarray]:
    """Per level (a leading axis over ``tasks``), what the shared frame logic and the screen need:
    buttons float32[L, 4, 2], button_real bool[L, 4], image_half, end_half float32[L], end_buttons
    float32[L, 4, 2], grid float32[L, 3] (corner x, y, cell side), item_tile int32[L] (the grid
    items' first tile), self_paced, reveals_all bool[L], trials_cap int32[L], seconds float32[L]."""
    buttons = np.zeros((len(tasks), ps.MAX_BUTTONS, 2), np.float32)
    real = np.zeros((len(tasks), ps.MAX_BUTTONS), bool)
    for i, task in enumerate(tasks):
        buttons[i, :len(task.buttons)] = task.buttons
        real[i, :len(task.buttons)] = True
    column = lambda f, dtype: np.asarray([f(t) for t in tasks], dtype)   # noqa: E731
    return {"buttons": buttons, "button_real": real, "image_half": column(lambda t: t.image_half, np.float32),
            "end_half": column(lambda t: t.end_half, np.float32),
            "end_buttons": column(lambda t: t.end_buttons, np.float32), "grid": column(lambda t: t.grid, np.float32),
            "item_tile": column(lambda t: DMLAB30_TILE + ITEM_TILES.get(t.grid_kind, 0), np.int32),
            "self_paced": column(lambda t: t.self_paced, bool), "reveals_all": column(lambda t: t.reveals_all, bool),
            "trials_cap": column(lambda t: t.trials_cap, np.int32),
            "seconds": column(lambda t: t.episode_seconds, np.float32)}


class PsychlabScreenEnv(Env):
    """DMLab-30's PsychLab levels in one env.

    Args:
      levels: level names (keys of ``SCREEN_LEVELS``; default all four, in its order); name: the env's
      name (default: the one level's name, or "dmlab30_psychlab"); width, height: frame size in pixels;
      observations: names among ``first_person.observations.OBSERVATION_NAMES``; action_repeat: frames
      per agent step; fps: frames per second; episode_length_seconds: overrides every level's.
    """

    def __init__(self, levels: Optional[Sequence[str]] = None, name: str = "", width: int = 96, height: int = 72,
                 observations: Sequence[str] = ("RGB_INTERLEAVED",), action_repeat: int = 1, fps: int = 60,
                 episode_length_seconds: Optional[float] = None):
        self.levels = tuple(SCREEN_LEVELS if levels is None else levels)
        for level in self.levels:
            if level not in SCREEN_LEVELS:
                raise ValueError(f"unknown DMLab-30 PsychLab level {level!r}; known: {sorted(SCREEN_LEVELS)}")
        self.tasks = tuple(SCREEN_LEVELS[level] for level in self.levels)
        self.name = name or (self.levels[0] if len(self.levels) == 1 else "dmlab30_psychlab")
        self.width = positive_setting("width", 1, width)
        self.height = positive_setting("height", 1, height)
        self.action_repeat = positive_setting("action_repeat", 1, action_repeat)
        self.fps = positive_setting("fps", 1, fps)
        self.observations = (observations,) if isinstance(observations, str) else tuple(observations)
        self._specs = observation_specs(self.observations, self.width, self.height)
        self._table = layout_table(self.tasks)
        if episode_length_seconds is not None:
            seconds = positive_setting("episode_length_seconds", 0.0, episode_length_seconds)
            self._table["seconds"] = np.full_like(self._table["seconds"], seconds)

    @property
    def num_levels(self) -> int:
        """The number of levels this env holds."""
        return len(self.levels)

    def observation_spec(self):
        """dict name -> ArraySpec, as a first-person env's for the same names and frame size."""
        return dict(self._specs)

    def action_spec(self):
        """DMLab's BoundedArraySpec int32[7]."""
        return actions.action_spec()

    @property
    def discrete_actions(self):
        """DMLab's 9-action IMPALA set, name -> int[7] action row."""
        return actions.DISCRETE_ACTIONS

    def layout(self, level_index) -> Dict[str, jnp.ndarray]:
        """The ``layout_table`` row of level ``level_index`` (int32[])."""
        return {k: jnp.asarray(v)[level_index] for k, v in self._table.items()}

    def _per_level(self, level_index, method: str, *args):
        """``task.<method>(*args)`` of the episode's level (a ``lax.switch`` when the env holds several)."""
        branches = [getattr(task, method) for task in self.tasks]
        if len(branches) == 1:
            return branches[0](*args)
        return jax.lax.switch(level_index, branches, *args)

    def init_state(self, key: jax.Array, level_index=None) -> ScreenState:
        """A new episode of level ``level_index`` (int32[]; drawn uniformly from ``key`` when None): its
        memory, the fixation cross up, the look level with a random yaw within ``SPAWN_YAW``."""
        k_level, k_memory, k_yaw, key = jax.random.split(key, 4)
        if level_index is None:
            level_index = jax.random.randint(k_level, (), 0, self.num_levels)
        level_index = jnp.asarray(level_index, jnp.int32)
        zero = jnp.int32(0)
        yaw = jax.random.uniform(k_yaw, (), minval=-SPAWN_YAW, maxval=SPAWN_YAW)
        return ScreenState(
            key=key, done=jnp.bool_(False), terminated=jnp.bool_(False), level_index=level_index, frames=zero,
            trial=zero, phase=jnp.int32(ps.FIXATE), timer=zero, look=jnp.stack([yaw, jnp.float32(0.0)]),
            rate=jnp.zeros((2,), jnp.float32), hovered=jnp.int32(-1),
            memory=self._per_level(level_index, "init_memory", k_memory), current=ps.blank_trial(),
            episode_return=jnp.float32(0.0))

    def widget_under(self, gaze, phase, trial: ps.Trial, layout) -> jnp.ndarray:
        """int32[]: the widget of ``phase`` under gaze point ``gaze`` (float32[2]): 0 for the fixation
        cross's centre (FIXATE) or the end-study button (STUDY), a response button's index (RESPOND);
        -1 for none."""
        def inside(centre, half):
            return jnp.max(jnp.abs(gaze - centre), axis=-1) <= half
        on_button = inside(layout["buttons"], ps.BUTTON_HALF) & layout["button_real"]
        button = jnp.where(on_button.any(), jnp.argmax(on_button), -1)
        fixation = inside(jnp.zeros(2), ps.FIXATION_HOVER_HALF)
        end = inside(layout["end_buttons"][trial.end_button], layout["end_half"])
        return jnp.select([phase == ps.FIXATE, phase == ps.STUDY, phase == ps.RESPOND],
                          [jnp.where(fixation, 0, -1), jnp.where(end, 0, -1), button], -1).astype(jnp.int32)

    def _frame(self, state: ScreenState, turn) -> Tuple[ScreenState, jnp.ndarray]:
        """One frame with the look turning by ``turn`` (float32[2] degrees right, up). Returns (state,
        reward float32[])."""
        live = ~state.done
        layout = self.layout(state.level_index)
        look = jnp.clip(state.look + turn * live, -LOOK_LIMIT, LOOK_LIMIT)
        gaze = view.gaze_point(look)
        ticking = live & ((state.phase == ps.WAIT) | (state.phase == ps.DELAY))
        timer = state.timer - ticking.astype(jnp.int32)
        fired = ticking & (timer <= 0)
        phase = jnp.where(fired, jnp.where(state.phase == ps.WAIT, ps.FIXATE, ps.RESPOND), state.phase)
        on = jnp.where(live, self.widget_under(gaze, phase, state.current, layout), -1)
        fixating = (phase == ps.FIXATE) & (on >= 0)
        study_end = (phase == ps.STUDY) & (on < 0) & (state.hovered >= 0)
        ending = (phase == ps.RESPOND) & (state.hovered >= 0) & (on != state.hovered)
        correct = state.hovered == state.current.answer
        paid = jnp.where(correct, ps.CORRECT_REWARD, ps.INCORRECT_REWARD)
        reward = jnp.where(ending, paid, 0.0).astype(jnp.float32)
        drawn, drawn_memory = self._per_level(state.level_index, "new_trial",
                                              jax.random.fold_in(state.key, 2 * state.trial), state.memory)
        finished = self._per_level(state.level_index, "finish", jax.random.fold_in(state.key, 2 * state.trial + 1),
                                   state.memory, state.current, correct)
        memory = select_tree(fixating, drawn_memory, select_tree(ending, finished, state.memory))
        trial = state.trial + ending.astype(jnp.int32)
        frames = state.frames + live.astype(jnp.int32)
        terminated = state.terminated | (ending & (trial >= layout["trials_cap"]))
        truncated = frames >= jnp.round(layout["seconds"] * self.fps).astype(jnp.int32)
        phase = jnp.select([fixating, study_end, ending],
                           [jnp.where(layout["self_paced"], ps.STUDY, ps.RESPOND), ps.DELAY, ps.WAIT], phase)
        state = state.replace(
            done=state.done | terminated | truncated, terminated=terminated, frames=frames, trial=trial,
            phase=phase.astype(jnp.int32),
            timer=jnp.select([study_end, ending], [state.current.delay, ps.INTER_TRIAL_FRAMES],
                             timer).astype(jnp.int32),
            look=look, rate=look - state.look,
            hovered=jnp.where(fixating | study_end | ending, -1, jnp.where(on >= 0, on, state.hovered)),
            memory=memory, current=select_tree(fixating, drawn, state.current),
            episode_return=state.episode_return + reward)
        return state, reward

    def advance(self, state: ScreenState, action):
        """Apply DMLab action ``action`` (int32[7]) for ``action_repeat`` frames. Returns (state, reward
        float32[] summed, terminated bool[] (the trial cap), truncated bool[] (the episode's time))."""
        action = jnp.asarray(action, jnp.int32)
        turn = jnp.stack([action[actions.LOOK_LEFT_RIGHT], -action[actions.LOOK_DOWN_UP]]).astype(jnp.float32) \
            * LOOK_DEGREES_PER_PIXEL   # degrees right, up

        def one_frame(_, carry):
            state, total = carry
            state, reward = self._frame(state, turn)
            return state, total + reward

        state, reward = jax.lax.fori_loop(0, self.action_repeat, one_frame, (state, jnp.float32(0.0)))
        return state, reward, state.terminated, state.done & ~state.terminated

    def observe(self, state: ScreenState):
        """The requested observations (``dmlab30_view.observations``) of the screen around the gaze."""
        layout = self.layout(state.level_index)
        slots, grid = view.screen_items(layout, state.phase, state.hovered, state.current)
        rgb = view.frame(slots, grid, view.gaze_point(state.look), self.width, self.height)
        seconds_left = layout["seconds"] - state.frames / jnp.float32(self.fps)
        return view.observations(self.observations, rgb, state.look, state.rate * self.fps, seconds_left)

    def oracle_action(self, state: ScreenState) -> jnp.ndarray:
        """int32[7]: a privileged player's action: look at the fixation cross, at the end-study button
        until it is hovered, at the right button until it is hovered, else at the screen's centre;
        the turn lands within one agent step where it can."""
        layout = self.layout(state.level_index)
        end = layout["end_buttons"][state.current.end_button]
        right = layout["buttons"][state.current.answer]
        aim = jnp.where((state.phase == ps.STUDY) & (state.hovered < 0), end,
                        jnp.where((state.phase == ps.RESPOND) & (state.hovered < 0), right, jnp.zeros(2)))
        want = jnp.rad2deg(jnp.arctan(jnp.stack([aim[0], aim[1] - view.LEVEL_GAZE_Y]) / view.DISTANCE))
        pixels = jnp.round((want - state.look) / (LOOK_DEGREES_PER_PIXEL * self.action_repeat))
        pixels = jnp.clip(pixels, -512, 512).astype(jnp.int32)
        return jnp.zeros((7,), jnp.int32).at[actions.LOOK_LEFT_RIGHT].set(pixels[0]).at[actions.LOOK_DOWN_UP].set(
            -pixels[1])
