"""``CheckedActions``: an opt-in check of action values under ``jax.jit``, with ``jax.experimental.checkify``.

A jitted program cannot raise, so by default the kernels take any value of the right form and
make it valid, on purpose: first-person and grid actions are clipped to their bounds, a
``DiscreteActions`` index is clipped into ``[0, N)``, a text command id outside the table changes
nothing (like an inadmissible command), and NaN in a memory task's slot keeps the held value. The
form of an action (shape, dtype, container) is always checked when ``step`` is traced
(``jaxlab.trace_checks``). To find the bug that feeds a kernel NaN or out-of-range values, wrap the
env and checkify the step::

    from jax.experimental import checkify
    env = CheckedActions(jaxlab.make("nav_maze_static_01", width=96, height=72))
    step = jax.jit(checkify.checkify(env.step))
    err, (state, ts) = step(state, action)
    err.throw()   # JaxRuntimeError: CheckedActions(FirstPersonEnv('nav_maze_static_01')).step:
                  # action 'MOVE_BACK_FORWARD': expected a value in [-1, 1], got 3

Every element of the action is checked against its bounds (NaN fails, except where the spec
allows it: ``nan_allowed``); the first element that fails is reported, by name. The checks are
part of the program (a compare per element, and the error carried out), so leave the wrapper off
where speed matters. A checked step that is jitted without ``checkify.checkify`` is refused when
traced (JAX's "checkify.check which was not functionalized" error).
"""
from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax.experimental import checkify

from jaxlab import trace_checks
from jaxlab.env import Env
from jaxlab.types import ArraySpec, BoundedArraySpec
from jaxlab.wrappers.core import Wrapper


def check_values(where: str, action: Any, spec: Any) -> None:
    """Add a ``checkify`` check per element of ``action`` (of ``spec``'s form, see ``Env.action_spec``;
    a dict action: each entry it has) that fails on a value outside the spec's ``[minimum, maximum]``
    or on NaN (unless ``spec.nan_allowed``), with a message naming ``where``, the element and its bounds."""
    if isinstance(spec, ArraySpec):
        _check_array(where, "action", action, spec)
        return
    for name, value in action.items():
        if name in spec:
            _check_array(where, f"action {name!r}", value, spec[name])


def _check_array(where: str, what: str, value: Any, spec: BoundedArraySpec) -> None:
    value = jnp.asarray(value)
    lo = np.broadcast_to(np.asarray(spec.minimum), spec.shape)
    hi = np.broadcast_to(np.asarray(spec.maximum), spec.shape)
    for index in np.ndindex(*spec.shape):
        element = value[index]
        ok = (element >= lo[index]) & (element <= hi[index])
        if spec.nan_allowed:
            ok = ok | jnp.isnan(element)
        label = what if not index else f"action {spec.element_label(index)!r}"
        text = f"{where}: {label}: expected a value in [{lo[index]}, {hi[index]}], got "
        checkify.check(ok, text.replace("{", "{{").replace("}", "}}") + "{value}", value=element)


class CheckedActions(Wrapper):
    """An env whose ``step``/``advance`` check each action value under jit (see the module): run its
    ``step`` through ``checkify.checkify`` and call ``err.throw()``. Everything else, the action's
    form check included, is the wrapped env's. TypeError when an action spec of ``env`` has no bounds."""

    def __init__(self, env: Env):
        super().__init__(env)
        spec = env.action_spec()
        for one in (spec,) if isinstance(spec, ArraySpec) else spec.values():
            if not isinstance(one, BoundedArraySpec) or one.minimum is None or one.maximum is None:
                raise TypeError(f"CheckedActions needs bounded action specs (BoundedArraySpec with minimum and "
                                f"maximum); {env!r}'s action spec is {one!r}")

    def advance(self, state: Any, action: Any):
        """The wrapped env's advance after the value checks: (state, reward, terminated, truncated)."""
        check_values(f"{self!r}.advance", action, self.action_spec())
        return self.env.advance(state, action)

    def step(self, state: Any, action: Any):
        """The wrapped env's step (form checked when traced, values checked by checkify): (state, TimeStep)."""
        where = f"{self!r}.step"
        trace_checks.check_action(where, action, self.action_spec())
        check_values(where, action, self.action_spec())
        return self.env.step(state, action)
