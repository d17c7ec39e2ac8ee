"""PsychlabEnv: a PsychLab memory task: the agent sits before a screen and answers with its gaze.

The agent's float32[4] action is sticky (``jaxlab.levels.dmlab.memory.actions``); LOOK_LEFT_RIGHT and LOOK_DOWN_UP
move the gaze point over the screen (full deflection: ``GAZE_SPEED`` screen units per frame, the
screen being 2 units wide, so about 1.1 s from edge to edge at 60 frames/s; positive looks right /
down, as DeepMind Lab's LOOK_DOWN_UP adds to Quake's view pitch); strafing and moving do nothing. The frame is the part of the screen around the gaze
(``jaxlab.render.psychlab.screen``), the red reticle at its centre marking the gaze.

The gaze fixates a thing when it rests on it (moves at most ``REST_SPEED`` screen units per frame,
a quarter of full deflection) for ``DWELL_FRAMES`` frames in a row; a sweep across a target selects
nothing. A trial (``jaxlab.levels.dmlab.psychlab.task``): fixate the fixation mark, watch the study items, wait
out the delay, then fixate a response target in each response stage: the right one pays
``CORRECT_REWARD``, another 0; after the last stage the next trial starts. Trial ``n`` is drawn from
the episode key folded with ``n``, so an episode depends on its key alone.
"""
from __future__ import annotations

from typing import Optional, Sequence

import jax
import jax.numpy as jnp
from flax import struct

from jaxlab.env import Env, select_tree
from jaxlab.kernels.memory.env import OBSERVATION_NAMES, MemoryTaskSettings
from jaxlab.levels.dmlab.memory import actions
from jaxlab.levels.dmlab.memory.tasks import EpisodeDraw
from jaxlab.levels.dmlab.psychlab.stimuli import KIND_BUTTON, KIND_FIXATION, KIND_IMAGE, KIND_NONE
from jaxlab.levels.dmlab.psychlab.task import DELAY, FIXATE, RESPOND, STUDY, PsychlabTask, Trial
from jaxlab.render.psychlab.screen import SCREEN_HALF_HEIGHT, Slots, render_screen

#: gaze movement at full deflection of a look slot, screen units per frame
GAZE_SPEED = 0.03
#: the gaze rests (may fixate) while it moves at most this far per frame (screen units)
REST_SPEED = 0.25 * GAZE_SPEED
#: frames the gaze must rest on the fixation mark or on a target to select it
DWELL_FRAMES = 6
#: half side of the fixation mark (screen units): the gaze must be inside it to fixate
FIXATION_HALF = 0.12
CORRECT_REWARD = 1.0
#: the AvatarPosition observation: the agent sits still in front of the screen
AVATAR_POSITION = (0.0, 0.0, 0.0)


@struct.dataclass
class PsychlabState:
    """One episode of a PsychLab task.

    key: the episode's PRNG key (trial ``n`` is drawn from ``fold_in(key, n)``); done: bool[] ended;
    held: float32[4] the action in force (sticky); draw: the ``EpisodeDraw``; trial: int32[] trials
    answered; frames: int32[] frames run; gaze: float32[2] the gaze point (screen units, x right, y up);
    fixated: bool[] the trial's fixation is done; since: int32[] frames since it was; stage: int32[]
    the response stage (0 first); dwell: int32[] frames the gaze has rested on ``dwell_on`` (int32[],
    -1: nothing); memory: int32[K] the task's memory across trials; current: the trial's ``Trial``;
    episode_return: float32[] rewards summed.
    """

    key: jnp.ndarray
    done: jnp.ndarray
    held: jnp.ndarray
    draw: EpisodeDraw
    trial: jnp.ndarray
    frames: jnp.ndarray
    gaze: jnp.ndarray
    fixated: jnp.ndarray
    since: jnp.ndarray
    stage: jnp.ndarray
    dwell: jnp.ndarray
    dwell_on: jnp.ndarray
    memory: jnp.ndarray
    current: Trial
    episode_return: jnp.ndarray


class PsychlabEnv(MemoryTaskSettings, Env):
    """A PsychLab memory task for one split.

    Args:
      task: the split's ``PsychlabTask``; name: the level name; width, height: frame size in pixels
      (96×72); observations: names among ``OBSERVATION_NAMES``; action_repeat: frames per agent step
      (rewards summed, one frame rendered); episode_length_seconds: overrides the task's; fps: frames
      per second of game time.
    """

    def __init__(self, task: PsychlabTask, name: str = "", width: int = 96, height: int = 72,
                 observations: Sequence[str] = OBSERVATION_NAMES, action_repeat: int = 1,
                 episode_length_seconds: Optional[float] = None, fps: int = 60):
        self.task = task
        self.name = name or task.name
        self._apply_settings(task.episode_seconds, width, height, observations, action_repeat,
                             episode_length_seconds, fps)
        self._targets, self._real = task.stage_targets()

    def init_state(self, key: jax.Array) -> PsychlabState:
        """A new episode: the draw, the task's memory, trial 0 waiting for fixation, gaze centred."""
        k_draw, k_memory, key = jax.random.split(key, 3)
        draw = self.task.draw(k_draw)
        memory = self.task.init_memory(k_memory, draw)
        zero = jnp.int32(0)
        return PsychlabState(
            key=key, done=jnp.bool_(False), held=jnp.zeros((4,), jnp.float32), draw=draw, trial=zero, frames=zero,
            gaze=jnp.zeros((2,), jnp.float32), fixated=jnp.bool_(False), since=zero, stage=zero, dwell=zero,
            dwell_on=jnp.int32(-1), memory=memory,
            current=self.task.new_trial(jax.random.fold_in(key, 0), draw, memory),
            episode_return=jnp.float32(0.0))

    def phase(self, state: PsychlabState) -> jnp.ndarray:
        """int32[]: the trial's phase (``task.FIXATE``, ``STUDY``, ``DELAY`` or ``RESPOND``)."""
        study = jnp.int32(self.task.study_frames)
        delay_end = study + self.task.delay_frames(state.draw)
        timed = jnp.where(state.since < study, STUDY, jnp.where(state.since < delay_end, DELAY, RESPOND))
        return jnp.where(state.fixated, timed, FIXATE).astype(jnp.int32)

    def looked_at(self, gaze, phase, stage) -> jnp.ndarray:
        """int32[]: what the gaze (float32[2]) is on: 0 the fixation mark (FIXATE), the index of one of
        response stage ``stage``'s (int32[]) targets (RESPOND), or -1."""
        off = jnp.max(jnp.abs(gaze - jnp.asarray(self._targets)[stage]), axis=-1)
        inside = (off <= self.task.target_half) & jnp.asarray(self._real)[stage]
        target = jnp.where(inside.any(), jnp.argmax(inside), -1)
        on_mark = jnp.max(jnp.abs(gaze)) <= FIXATION_HALF
        return jnp.select([phase == FIXATE, phase == RESPOND], [jnp.where(on_mark, 0, -1), target], -1).astype(
            jnp.int32)

    def _frame(self, state: PsychlabState, velocity):
        """One frame: move the gaze, track the dwell, fixate or answer. Returns (state, reward float32[])."""
        live = ~state.done
        limit = jnp.asarray([1.0, SCREEN_HALF_HEIGHT], jnp.float32)
        gaze = jnp.clip(state.gaze + velocity * live, -limit, limit)
        resting = jnp.max(jnp.abs(gaze - state.gaze)) <= REST_SPEED
        phase = self.phase(state)
        on = jnp.where(resting, self.looked_at(gaze, phase, state.stage), -1)
        dwell = jnp.where((on >= 0) & (on == state.dwell_on), state.dwell + 1, (on >= 0).astype(jnp.int32))
        settled = (dwell >= DWELL_FRAMES) & live
        fixating = settled & (phase == FIXATE)
        answered = settled & (phase == RESPOND)
        finished = answered & (state.stage == self.task.num_stages - 1)
        right = on == state.current.answer[state.stage]
        reward = jnp.where(answered & right, CORRECT_REWARD, 0.0).astype(jnp.float32)
        memory = self.task.remember(state.memory, state.draw, state.current)
        memory = jnp.where(finished, memory, state.memory)
        following = self.task.new_trial(jax.random.fold_in(state.key, state.trial + 1), state.draw, memory)
        frames = state.frames + live.astype(jnp.int32)
        state = state.replace(
            done=frames >= self.episode_frames, trial=state.trial + finished.astype(jnp.int32), frames=frames,
            gaze=gaze, fixated=(state.fixated | fixating) & ~finished,
            since=jnp.where(fixating | finished, 0, state.since + (state.fixated & live).astype(jnp.int32)),
            stage=jnp.where(finished, 0, state.stage + answered.astype(jnp.int32)),
            dwell=jnp.where(settled, 0, dwell), dwell_on=on, memory=memory,
            current=select_tree(finished, following, state.current), episode_return=state.episode_return + reward)
        return state, reward

    def advance(self, state: PsychlabState, action):
        """Apply ``action`` (float32[4], NaN: keep the held value) and run ``action_repeat`` frames.
        Returns (state, reward float32[], terminated bool[] (never), truncated bool[] (time limit))."""
        held = actions.sticky(state.held, action)
        velocity = jnp.stack([held[actions.LOOK_LEFT_RIGHT], -held[actions.LOOK_DOWN_UP]]) * GAZE_SPEED

        def one_frame(_, carry):
            state, total = carry
            state, reward = self._frame(state, velocity)
            return state, total + reward

        state, reward = jax.lax.fori_loop(0, self.action_repeat, one_frame,
                                          (state.replace(held=held), jnp.float32(0.0)))
        return state, reward, jnp.bool_(False), state.done

    def slots(self, state: PsychlabState) -> Slots:
        """The 9 ``Slots`` the screen shows now: the fixation mark, 4 centre items, the response stage's
        4 targets."""
        task, phase = self.task, self.phase(state)
        centre_xy, centre_half = task.centre
        centre_ids = jnp.where(phase == STUDY, state.current.study,
                               jnp.where(phase == RESPOND, state.current.probe, -1))
        choices = state.current.choices[state.stage]
        shown = jnp.asarray(self._real)[state.stage] & (phase == RESPOND)
        target_kind = jnp.where(shown, jnp.where(choices >= 0, KIND_IMAGE, KIND_BUTTON), KIND_NONE)
        return Slots(
            centre=jnp.concatenate([jnp.zeros((1, 2)), jnp.asarray(centre_xy),
                                    jnp.asarray(self._targets)[state.stage]]),
            half=jnp.concatenate([jnp.asarray([FIXATION_HALF]), jnp.asarray(centre_half),
                                  jnp.full((4,), task.target_half)]).astype(jnp.float32),
            kind=jnp.concatenate([jnp.where(phase == FIXATE, KIND_FIXATION, KIND_NONE)[None],
                                  jnp.where(centre_ids >= 0, task.centre_kind, KIND_NONE),
                                  target_kind]).astype(jnp.int32),
            ident=jnp.concatenate([jnp.zeros((1,), jnp.int32), centre_ids, choices]).astype(jnp.int32))

    def observe(self, state: PsychlabState):
        """The requested observations: RGB_INTERLEAVED uint8[H, W, 3] (the screen around the gaze);
        AvatarPosition float32[3] (``AVATAR_POSITION``, fixed); Score float32[] (the episode's return)."""
        out = {}
        if "RGB_INTERLEAVED" in self.observations:
            out["RGB_INTERLEAVED"] = render_screen(self.slots(state), state.gaze, self.width, self.height)
        if "AvatarPosition" in self.observations:
            out["AvatarPosition"] = jnp.asarray(AVATAR_POSITION, jnp.float32)
        if "Score" in self.observations:
            out["Score"] = state.episode_return.astype(jnp.float32)
        return {name: out[name] for name in self.observations}

    def episode_stimuli(self, state: PsychlabState) -> jnp.ndarray:
        """int32[8 + 4 S + K] the stimulus ids (images or colours) in the state's trial arrays and pool:
        the current trial's study, probe and every stage's choices, then the episode's drawn stimuli
        (-1 pads)."""
        c = state.current
        return jnp.concatenate([c.study, c.probe, c.choices.reshape(-1), state.draw.stimuli])

    def oracle_action(self, state: PsychlabState) -> jnp.ndarray:
        """float32[4]: look at the fixation mark until the response, then at each stage's right target
        (privileged: reads the answer); the deflection lands on the point within one agent step when it
        can, and rests there."""
        right = jnp.asarray(self._targets)[state.stage, state.current.answer[state.stage]]
        aim = jnp.where(self.phase(state) == RESPOND, right, 0.0)
        look = jnp.clip((aim - state.gaze) / (GAZE_SPEED * self.action_repeat), -1.0, 1.0)
        return jnp.zeros((4,), jnp.float32).at[actions.LOOK_LEFT_RIGHT].set(look[0]).at[actions.LOOK_DOWN_UP].set(
            -look[1])
