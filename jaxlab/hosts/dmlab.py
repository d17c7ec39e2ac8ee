"""``jaxlab.Lab``: DeepMind Lab's Python host API over the jaxlab kernels.

A drop-in for ``deepmind_lab.Lab`` on the levels jaxlab has::

    lab = jaxlab.Lab("seekavoid_arena_01", ["RGB_INTERLEAVED"], {"width": "96", "height": "72"})
    lab.reset(seed=1)
    reward = lab.step(np.zeros(7, np.intc), num_steps=4)
    frame = lab.observations()["RGB_INTERLEAVED"]      # uint8[72, 96, 3]

One instance runs one episode at a time on the host; the work is done by
jitted kernels that are compiled once per (map shapes, settings, num_steps)
and shared by every Lab in the process.
"""
from __future__ import annotations

import functools
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.errors import unknown_name_error
from jaxlab.hosts.checks import array_action
from jaxlab.registry import make
from jaxlab.settings import (MAX_ACTION_REPEAT, MAX_COUNT, integer_value, names_value, numeric_kind,
                             positive_setting, refusal)
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.kernels.psychlab.dmlab30_env import PsychlabScreenEnv
from jaxlab.kernels.first_person.observations import INSTRUCTION, OBSERVATION_NAMES, custom_specs, observation_specs
from jaxlab.levels.dmlab.instructions import decode as decode_instruction
from jaxlab.levels.dmlab.units import DEFAULT_FPS

DEFAULT_WIDTH = 320
DEFAULT_HEIGHT = 240
CONFIG_KEYS = ("width", "height", "fps", "episodeLengthSeconds", "episode_length_seconds", "appendCommand")
RENDERERS = (None, "", "software", "hardware")
#: ``reset``'s episode is a C int in DeepMind Lab
EPISODE_RANGE = (-2 ** 31, 2 ** 31 - 1)

_UNINITIALIZED, _RUNNING, _ENDED, _CLOSED = "uninitialized", "running", "ended", "closed"


# -- jitted kernels, shared by all Labs: the level bank is an argument (None for a procedural
# level), the level generator (or None), its episode length, a script's compiled callbacks (or None),
# the PsychLab screen levels (or None) and the settings are static --------------------------------

_STATIC = ("fps", "generator", "seconds", "script", "screen")


def _env(bank, width: int, height: int, observations: Tuple[str, ...], fps: int, repeat: int, generator,
         seconds, script, screen=None):
    if screen is not None:   # DMLab-30's PsychLab levels: the agent before a screen
        return PsychlabScreenEnv(levels=screen, width=width, height=height, observations=observations,
                                 action_repeat=repeat, fps=fps, episode_length_seconds=seconds)
    return FirstPersonEnv(bank, width=width, height=height, observations=observations, action_repeat=repeat,
                          fps=fps, generator=generator, episode_length_seconds=seconds, script=script)


def decoded_events(recorded) -> List[Tuple[str, list]]:
    """(name, observations) pairs of one episode's recorded events (a compile's ``meta["events"]`` entry:
    [name, [observation, ...]], each a str or {"dtype", "shape", "data"}): strings as they are, tensors as
    numpy arrays of their dtype and shape."""
    return [(str(name), [o if isinstance(o, str) else
                         np.asarray(o["data"], np.dtype(o["dtype"])).reshape(o["shape"]) for o in observations])
            for name, observations in recorded]


@functools.partial(jax.jit, static_argnames=_STATIC)
def _init(bank, key, level_index, fps: int, generator=None, seconds=None, script=None, screen=None):
    return _env(bank, 1, 1, (), fps, 1, generator, seconds, script, screen).init_state(key, level_index)


@functools.partial(jax.jit, static_argnames=_STATIC + ("repeat",))
def _advance(bank, state, action, fps: int, repeat: int, generator=None, seconds=None, script=None, screen=None):
    state, reward, _, _ = _env(bank, 1, 1, (), fps, repeat, generator, seconds, script, screen).advance(state,
                                                                                                         action)
    return state, reward


@functools.partial(jax.jit, static_argnames=_STATIC + ("width", "height", "observations"))
def _observe(bank, state, width: int, height: int, observations: Tuple[str, ...], fps: int, generator=None,
             seconds=None, script=None, screen=None):
    return _env(bank, width, height, observations, fps, 1, generator, seconds, script, screen).observe(state)


# -- config ---------------------------------------------------------------------------------------

def parse_config(config: Mapping[str, str], level_keys: bool = False) -> Dict[str, Any]:
    """Read a DMLab config dict (string keys and values) into settings.

    Returns {'width', 'height' (pixels, ints in [1, 4096]), 'fps' (int in
    [1, 1000]), 'episode_length_seconds' (float in (0, 86400], or None),
    'level' (dict of the other keys, for a Lua level's init; only with
    ``level_keys``)}. Numbers are read from strings as Lua's ``tonumber``
    reads them (``'96'``, ``' 96 '``, ``'0x60'``), as DeepMind Lab does
    (:func:`jaxlab.settings.positive_setting`, limits in
    ``jaxlab.settings.LIMITS``). Raises TypeError for a config that is not a
    dict or has non-string keys or values, SettingError (a ValueError)
    naming ``'Lab: config'`` and the key for values that do not parse or lie
    out of range, ValueError for other bad values, UnknownNameError (with
    suggestions) for unknown keys.
    """
    where = "Lab: config"
    if not isinstance(config, Mapping):
        raise TypeError(refusal(where, "config", "a dict of strings (e.g. {'width': '96'})", config))
    out: Dict[str, Any] = {"width": DEFAULT_WIDTH, "height": DEFAULT_HEIGHT, "fps": DEFAULT_FPS,
                           "episode_length_seconds": None, "level": {}}
    for key, value in config.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(refusal(where, f"key {key!r}", "strings as keys and values, as in DeepMind Lab "
                                    "(e.g. {'width': '96'})", value))
        if key not in CONFIG_KEYS:
            if level_keys:
                out["level"][key] = value
                continue
            raise unknown_name_error("config key", key, CONFIG_KEYS)
        if key in ("width", "height", "fps"):
            out[key] = positive_setting(key, out[key], value, where)
        elif key == "appendCommand":
            if value.strip():
                raise ValueError(f"appendCommand {value!r}: jaxlab has no Quake console; only '' is accepted")
        else:
            seconds = positive_setting(key, 0.0, value, where)   # 0.0: a float setting
            if out["episode_length_seconds"] not in (None, seconds):
                raise ValueError("episodeLengthSeconds and episode_length_seconds disagree")
            out["episode_length_seconds"] = seconds
    return out


class Lab:
    """DeepMind Lab's host API (``deepmind_lab.Lab``) over a jaxlab level.

    Args:
      level: a level name (``jaxlab.levels.names()``) or DMLab level path
        (``contributed/dmlab30/rooms_watermaze``), a text-map path, a Lua level
        script (``*.lua``) or a compiled ``*.jaxlab`` file.
      observations: list (or tuple) of observation names returned by ``observations()``
        (see ``observation_spec()``), the level's custom observations
        included; unknown names raise UnknownNameError, a str or other
        non-list TypeError.
      config: dict of strings, as in DeepMind Lab (see :func:`parse_config`):
        ``width``, ``height`` (pixels, default 320×240, at most 4096),
        ``fps`` (frames per second, default 60), ``episodeLengthSeconds`` /
        ``episode_length_seconds`` (overrides the level's), ``appendCommand``
        (only '' is accepted). For a Lua script every other key goes to its
        ``init(settings)``; otherwise unknown keys raise UnknownNameError.
      renderer: 'software', 'hardware' or None; accepted for compatibility, no effect.
      level_cache: accepted for compatibility and ignored.
      episodes: for a Lua script, how many episodes to compile (an int in [1, 1_000_000];
        ``reset(episode=k)`` selects one); a ``.jaxlab`` file holds its own.
    """

    def __init__(self, level: str, observations: Sequence[str], config: Optional[Mapping[str, str]] = None,
                 renderer: Optional[str] = None, level_cache: Any = None, episodes: int = 1):
        observations = names_value("Lab", "observations", observations)
        episodes = integer_value("Lab", "episodes", episodes, 1, MAX_COUNT)
        if renderer not in RENDERERS:
            raise ValueError(f"renderer must be 'hardware' or 'software', got {renderer!r}")
        lua = str(level).endswith(".lua")
        settings = parse_config({} if config is None else config, level_keys=lua)
        extra = {"level_settings": settings["level"], "episodes": episodes} if lua else {}
        self._observations = observations
        # The environment checks the names: built-in ones and the level's custom observations.
        env = make(level, width=settings["width"], height=settings["height"], fps=settings["fps"],
                   observations=self._observations,
                   episode_length_seconds=settings["episode_length_seconds"], **extra)
        self._level = level
        screen = isinstance(env, PsychlabScreenEnv)
        self._bank = None if screen else env.bank
        # A procedural level (DMLab-30) draws its episodes on device: its generator is static; so are a
        # PsychLab level's names.
        self._kernel_args = dict(fps=env.fps, generator=None if screen else env.generator,
                                 script=None if screen else env.script, screen=env.levels if screen else None,
                                 seconds=None if (not screen and env.generator is None)
                                 else settings["episode_length_seconds"])
        self._num_levels = env.num_levels
        self._action_spec = env.action_spec()   # DMLab's seven, then a level script's custom actions
        self._episode_events, self._events = getattr(env, "episode_events", ()), []
        self._instruction_words = () if screen else env.instruction_words   # a compiled level's own words
        self._width, self._height, self._fps = env.width, env.height, env.fps
        self._status = _UNINITIALIZED
        self._episode = 0
        self._num_steps = 0
        self._state = None
        self._cached_obs: Optional[Dict[str, np.ndarray]] = None
        self._rng = np.random.default_rng()

    # -- status ----------------------------------------------------------------------------------

    def _check_open(self, method: str) -> None:
        if self._status == _CLOSED:
            raise RuntimeError(f"Lab.{method}() called after close(); make a new Lab")

    def _check_running(self, method: str) -> None:
        self._check_open(method)
        if self._status == _UNINITIALIZED:
            raise RuntimeError(f"Environment in wrong status for {method}(): call reset() first")
        if self._status == _ENDED:
            raise RuntimeError(f"Environment in wrong status for {method}(): the episode has ended "
                               "(is_running() is False); call reset() to start a new one")

    def is_running(self) -> bool:
        """True between ``reset()`` and the end of the episode; False before the
        first reset, after the episode ended, and after ``close()``."""
        return self._status == _RUNNING

    def close(self) -> bool:
        """Release the environment; afterwards every method but ``is_running()``
        raises RuntimeError. True if this call closed it, False if already closed."""
        if self._status == _CLOSED:
            return False
        self._status = _CLOSED
        self._state = self._cached_obs = self._bank = None
        return True

    # -- episodes --------------------------------------------------------------------------------

    def reset(self, episode: int = -1, seed: Optional[int] = None) -> bool:
        """Start an episode. ``episode`` ≥ 0 selects the bank level ``episode %
        num_levels`` (and continues in order from there); a negative one takes
        the next in numerical order (an int in [-2**31, 2**31 - 1], a C int
        as in DeepMind Lab: TypeError/ValueError otherwise). ``seed`` (an int
        of any size, used modulo 2**32) seeds the episode; None draws a random
        one; anything else raises ValueError, as in DeepMind Lab. The same
        (episode, seed) gives the same episode. Returns True."""
        self._check_open("reset")
        episode = integer_value("Lab.reset", "episode", episode, *EPISODE_RANGE)
        if seed is None:
            seed = int(self._rng.integers(0, 2 ** 31))
        elif numeric_kind(seed) != "i":
            raise ValueError(f"'seed' must be int or None, was {type(seed).__name__!r}")
        if episode >= 0:
            self._episode = episode
        key = jax.random.PRNGKey(int(seed) & 0xFFFFFFFF)
        level_index = jnp.int32(self._episode % self._num_levels)
        self._state = _init(self._bank, key, level_index, **self._kernel_args)
        recorded = self._episode_events
        self._events = decoded_events(recorded[self._episode % self._num_levels]) if recorded else []
        self._episode += 1
        self._num_steps = 0
        self._cached_obs = None
        self._status = _RUNNING
        return True

    def step(self, action: np.ndarray, num_steps: int = 1) -> float:
        """Advance ``num_steps`` frames repeating ``action`` and return the reward
        summed over them (float). ``action`` must be a numpy array of dtype
        np.intc (int32) and shape (7,) (7 + K with a level script's K custom actions, which reach its
        ``customDiscreteActions`` once per call) within ``action_spec()``; otherwise
        ValueError, as in DeepMind Lab, naming the offending element and its
        range (:func:`jaxlab.hosts.checks.array_action`). ``num_steps`` is an
        int in [1, 100_000] (TypeError for another type, ValueError out of
        range). Raises RuntimeError before ``reset()``, after the episode
        ended or after ``close()``, and when a compiled level script's callback failed
        during the step (the episode then ends). A refused call steps nothing. Each
        distinct ``num_steps`` compiles once."""
        self._check_open("step")
        array_action("Lab.step", action, self._action_spec)
        num_steps = integer_value("Lab.step", "num_steps", num_steps, 1, MAX_ACTION_REPEAT)
        self._check_running("step")
        self._state, reward = _advance(self._bank, self._state, action, repeat=num_steps, **self._kernel_args)
        self._events = []
        self._num_steps += num_steps
        self._cached_obs = None
        if bool(self._state.done):
            self._status = _ENDED
        script = self._kernel_args["script"]
        failed = None if script is None else script.script_error(self._state.script)
        if failed is not None and bool(failed):   # DMLab stops on a Lua error at play
            self._status = _ENDED
            raise RuntimeError(f"Lab.step: level {self._level!r}: a play-time callback of its script raised an error "
                               "(a failed assert or Lua's error()); DeepMind Lab stops the level here: reset() starts "
                               "the next episode")
        return float(reward)

    def num_steps(self) -> int:
        """Frames requested by ``step()`` since the last ``reset()`` (as in DMLab,
        the frames of a step that ran past the episode's end count in full)."""
        self._check_open("num_steps")
        return self._num_steps

    def events(self) -> List[Tuple[str, list]]:
        """Events of the last ``reset`` or ``step`` as (name, observations) pairs, each observation a str or
        a numpy array: after ``reset``, those the level script raised (``dmlab.system.events``) in the
        callbacks that made the episode (``start``, ``nextMap``, ...); after a step, none (events raised
        during play are not compiled)."""
        self._check_open("events")
        if self._status == _UNINITIALIZED:
            raise RuntimeError("Environment in wrong status for events(): call reset() first")
        return [(name, [o if isinstance(o, str) else o.copy() for o in observations])
                for name, observations in self._events]

    # -- observations and specs ------------------------------------------------------------------

    def observations(self) -> Dict[str, np.ndarray]:
        """dict name -> numpy array of the observations asked for at construction:
        frames uint8 (RGB_INTERLEAVED [H, W, 3], RGBD_INTERLEAVED [H, W, 4],
        RGB [3, H, W], RGBD [4, H, W]); VEL.TRANS (units/s), VEL.ROT (deg/s),
        DEBUG.POS.TRANS (units), DEBUG.POS.ROT (deg) as float64[3]; INSTR the
        level's instruction as a str ('' where it has none); the level's custom
        observations as uint8 ("bytes") or float64 ("doubles"). Raises RuntimeError unless ``is_running()``."""
        self._check_running("observations")
        if self._cached_obs is None:
            raw = jax.device_get(_observe(self._bank, self._state, width=self._width, height=self._height,
                                          observations=self._observations, **self._kernel_args))
            self._cached_obs = {name: decode_instruction(value, self._instruction_words) if name == INSTRUCTION else
                                np.asarray(value, np.uint8 if np.asarray(value).dtype == np.uint8 else np.float64)
                                for name, value in raw.items()}
        return {name: value if isinstance(value, str) else value.copy() for name, value in self._cached_obs.items()}

    def observation_spec(self) -> List[Dict[str, Any]]:
        """Every observation this level offers, as DMLab lists them: dicts
        {'name', 'shape', 'dtype'} (dtype np.uint8 for frames and custom
        "bytes", np.float64 for vectors and custom "doubles", str with shape () for INSTR); the built-in
        observations first, then the level's custom ones."""
        self._check_open("observation_spec")
        generator = self._kernel_args["generator"]
        levels = self._bank.levels if self._bank is not None else generator.level_shapes() if generator else None
        custom = {} if levels is None else custom_specs(levels)
        specs = observation_specs(OBSERVATION_NAMES + tuple(custom), self._width, self._height, custom)
        return [{"name": name, "shape": () if name == INSTRUCTION else tuple(spec.shape),
                 "dtype": str if name == INSTRUCTION else np.uint8 if np.dtype(spec.dtype) == np.uint8 else np.float64}
                for name, spec in specs.items()]

    def action_spec(self) -> List[Dict[str, Any]]:
        """The seven DMLab actions, then the level script's custom actions (its ``customDiscreteActionSpec``),
        as dicts {'name', 'min', 'max'} (ints)."""
        self._check_open("action_spec")
        return self._action_spec.elements()

    def fps(self) -> int:
        """Frames per second of game time (advisory, as in DMLab)."""
        self._check_open("fps")
        return self._fps

    def __repr__(self) -> str:
        return f"Lab({self._level!r}, {list(self._observations)!r}, status={self._status})"
