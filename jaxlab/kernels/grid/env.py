"""GridEnv: a Lab2D-style grid world as a pure jaxlab Env.

Actions are a dict with Lab2D's names, one entry per player and action:
``'1.move'`` (0 none, 1 N / forward, 2 E / right, 3 S / backward, 4 W /
left), ``'1.turn'`` (-1, 0, 1) and one ``'1.<beam action>'`` (0/1) per beam;
levels declared with ``action_prefix=False`` (pushbox) take a single
``'MOVE'``. Missing entries mean 0. Observations, chosen by name:
``WORLD.RGB``, ``WORLD.LAYER`` and per player ``n.RGB``, ``n.REWARD``,
``n.POSITION`` (x = column, y = row, as Lab2D) and ``n.INVENTORY`` (when the
level has items). ``WORLD.TEXT`` is a host string: ``env.world_text(state)``.
The TimeStep reward is the sum of the players' rewards.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Dict, Mapping, Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.bank import Bank
from jaxlab.env import Env
from jaxlab.errors import unknown_name_error
from jaxlab.kernels.grid.compile import compile_grid
from jaxlab.kernels.grid.kernel import GridActions, generate_layouts, initial_state, step_frame
from jaxlab.kernels.grid.state import GridState
from jaxlab.levels.lab2d.compiled import CompiledGrid
from jaxlab.levels.lab2d.layout import GridLayout
from jaxlab.levels.lab2d.spec import GridSpec
from jaxlab.render.grid import frames as render
from jaxlab.types import ArraySpec, BoundedArraySpec

#: maps per generated-level bank (see GridEnv's ``layouts``)
DEFAULT_LAYOUTS = 1024


@dataclasses.dataclass(frozen=True)
class _Generator:
    """A level's map generator, known (hashed and compared) by the level's name and settings."""

    name: str
    settings: str
    world: CompiledGrid = dataclasses.field(compare=False)


@functools.lru_cache(maxsize=None)
def _generated_layouts(level: _Generator, size: int) -> Bank:
    """``generate_layouts(level.world, size)``, made once per (level, settings, size) in a process."""
    return generate_layouts(level.world, size)


class GridEnv(Env):
    """A grid world (``GridSpec``) as ``reset(key)`` / ``step(state, actions)``.

    Args:
      spec: the level as data (or an already compiled world).
      observations: names to produce; default WORLD.RGB plus every player's
        RGB, REWARD and POSITION.
      layouts: the maps episodes start from. An int: for a level with a
        generator (pushbox), each episode's map is drawn from this many maps
        generated on device when the env is made (once per level, settings
        and count in a process; the XLand-MiniGrid way: a reset is then a
        cheap gather, which matters under AutoReset, where every step
        computes a reset); 0 runs the generator at every reset instead; a
        level without a generator plays its spec's map. A ``Bank`` of
        GridLayouts (chars uint8[N, H, W], the world's H×W): episodes start
        from these maps.

    ``env.layouts`` is the bank episodes draw from (None: no bank).
    """

    def __init__(self, spec: Union[GridSpec, CompiledGrid], observations: Optional[Sequence[str]] = None,
                 layouts: Union[int, Bank] = DEFAULT_LAYOUTS):
        self.world = spec if isinstance(spec, CompiledGrid) else compile_grid(spec)
        self.spec = self.world.spec
        self.name = self.spec.name
        self.layouts = self._bank_of(layouts)
        known = self.available_observations()
        if observations is None:
            observations = ["WORLD.RGB"] + [f"{n}.{k}" for n in range(1, self.num_players + 1)
                                            for k in ("RGB", "REWARD", "POSITION")]
        for name in observations:
            if name == "WORLD.TEXT":
                raise ValueError("WORLD.TEXT is a host string: use env.world_text(state), or the host "
                                 "jaxlab.grid.Lab2d, which reports it among its observations")
            if name not in known:
                raise unknown_name_error("observation", name, known)
        self.observations = tuple(observations)
        self._actions = self._all_action_specs()

    def _bank_of(self, layouts: Union[int, Bank]) -> Optional[Bank]:
        """The bank of the ``layouts`` argument (see the class docstring); ValueError if it does not fit."""
        if isinstance(layouts, Bank):
            shape = (self.world.height, self.world.width)
            levels = layouts.levels
            got = f"chars {list(levels.chars.shape)}" if isinstance(levels, GridLayout) else type(levels).__name__
            if not isinstance(levels, GridLayout) or tuple(levels.chars.shape[1:]) != shape:
                raise ValueError(f"layouts must be a Bank of GridLayouts with chars [N, {shape[0]}, {shape[1]}] "
                                 f"for level {self.name!r}, got {got}")
            return layouts
        if int(layouts) < 0:
            raise ValueError(f"layouts must be a Bank or a count >= 0, got {layouts!r}")
        if not self.spec.generator or not layouts:
            return None
        level = _Generator(self.spec.name, repr(sorted(self.spec.settings.items())), self.world)
        return _generated_layouts(level, int(layouts))

    @property
    def num_players(self) -> int:
        """Number of players P."""
        return self.world.num_players

    # ----- specs -----
    def available_observations(self) -> Dict[str, ArraySpec]:
        """Every observation this world can produce (WORLD.TEXT aside): dict name -> ArraySpec."""
        w, s = self.world, self.spec.sprite_size
        view = w.view_offsets.shape[1:3]
        specs = {"WORLD.RGB": ArraySpec((w.height * s, w.width * s, 3), np.uint8, "WORLD.RGB"),
                 "WORLD.LAYER": ArraySpec((w.height, w.width, len(w.layers)), np.int32, "WORLD.LAYER")}
        for n in range(1, self.num_players + 1):
            specs[f"{n}.RGB"] = ArraySpec((view[0] * s, view[1] * s, 3), np.uint8, f"{n}.RGB")
            specs[f"{n}.REWARD"] = ArraySpec((), np.float32, f"{n}.REWARD")
            specs[f"{n}.POSITION"] = ArraySpec((2,), np.int32, f"{n}.POSITION")
            if self.spec.items:
                specs[f"{n}.INVENTORY"] = ArraySpec((len(self.spec.items),), np.int32, f"{n}.INVENTORY")
        return specs

    def _all_action_specs(self) -> Dict[str, BoundedArraySpec]:
        if not self.spec.action_prefix:
            return {"MOVE": BoundedArraySpec((), np.int32, "MOVE", minimum=0, maximum=4)}
        specs = {}
        for n in range(1, self.num_players + 1):
            specs[f"{n}.move"] = BoundedArraySpec((), np.int32, f"{n}.move", minimum=0, maximum=4)
            specs[f"{n}.turn"] = BoundedArraySpec((), np.int32, f"{n}.turn", minimum=-1, maximum=1)
            for beam in self.world.beam_actions:
                specs[f"{n}.{beam}"] = BoundedArraySpec((), np.int32, f"{n}.{beam}", minimum=0, maximum=1)
        return specs

    def observation_spec(self) -> Dict[str, ArraySpec]:
        """Specs of the chosen observations: dict name -> ArraySpec."""
        known = self.available_observations()
        return {name: known[name] for name in self.observations}

    def action_spec(self) -> Dict[str, BoundedArraySpec]:
        """dict action name -> BoundedArraySpec (int32 scalars)."""
        return dict(self._actions)

    # ----- kernel -----
    def actions(self, action: Mapping[str, jnp.ndarray]) -> GridActions:
        """The kernel's GridActions from an action dict (values clipped to
        their specs; unknown names raise with suggestions)."""
        for name in action:
            if name not in self._actions:
                raise unknown_name_error("action", name, self._actions)

        def get(name):
            spec = self._actions[name]
            value = jnp.asarray(action.get(name, 0), jnp.int32)
            return jnp.clip(value, spec.minimum, spec.maximum)

        P, B = self.num_players, len(self.world.beam_actions)
        if not self.spec.action_prefix:
            return GridActions(move=get("MOVE")[None], turn=jnp.zeros(1, jnp.int32), fire=jnp.zeros((1, 0), jnp.int32))
        players = range(1, P + 1)
        return GridActions(
            move=jnp.stack([get(f"{n}.move") for n in players]),
            turn=jnp.stack([get(f"{n}.turn") for n in players]),
            fire=jnp.stack([jnp.stack([get(f"{n}.{b}") for b in self.world.beam_actions]) if B else
                            jnp.zeros(0, jnp.int32) for n in players]))

    def init_state(self, key: jax.Array, layout_index=None) -> GridState:
        """A fresh episode's GridState from ``key``: its map is layout ``layout_index`` (int32[], may be
        traced) of ``env.layouts``, or one drawn with ``key``."""
        if layout_index is not None and self.layouts is None:
            raise ValueError(f"level {self.name!r} has no layout bank to index: make the env with "
                             "layouts=N (a generated level) or layouts=Bank")
        return initial_state(self.world, key, self.layouts, layout_index)

    def advance(self, state: GridState, action: Mapping[str, jnp.ndarray]):
        """One frame: (state, reward float32[] summed over players, terminated, truncated)."""
        state, reward, terminated, truncated = step_frame(self.world, state, self.actions(action))
        return state, reward.sum(), terminated, truncated

    def observe(self, state: GridState) -> Dict[str, jnp.ndarray]:
        """The chosen observations of ``state`` (see the module docstring)."""
        out = {}
        for name in self.observations:
            if name == "WORLD.RGB":
                out[name] = render.world_rgb(self.world, state.grid)
            elif name == "WORLD.LAYER":
                out[name] = render.world_layer(state.grid)
            else:
                n, kind = name.split(".", 1)
                p = int(n) - 1
                if kind == "RGB":
                    out[name] = render.player_rgb(self.world, state.grid, state.pos[p], state.orientation[p])
                elif kind == "REWARD":
                    out[name] = state.reward[p]
                elif kind == "POSITION":
                    out[name] = state.pos[p, ::-1]
                else:
                    out[name] = state.inventory[p]
        return out

    def world_text(self, state: GridState) -> str:
        """WORLD.TEXT of one (unbatched) state: Lab2D's text rendering."""
        return render.world_text(self.world, state.grid)
