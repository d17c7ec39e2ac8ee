"""Checks of host actions, shared by every host: dict actions (Lab2D's ``Lab2d.step``,
dm_memorytasks' ``step``) and DeepMind Lab's int32[7] array (``Lab.step``).

Each bad action ends in one exception naming the host call, the action and its range
(``"Lab2d.step: action '1.move': expected an integer in [0, 4], got 1.7 (float)"``), raised
before anything is stepped. The scalars are checked by :func:`jaxlab.settings.integer_value` and
:func:`jaxlab.settings.number_value`, which the hosts' settings use too.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Union

import numpy as np

from jaxlab.errors import UnknownNameError, unknown_name_error
from jaxlab.settings import integer_value, number_value, refusal
from jaxlab.types import BoundedArraySpec


def scalar_action(where: str, name: str, value: Any, spec: Any) -> Union[int, float]:
    """``value`` of action ``name`` checked against ``spec`` (anything with ``dtype``, ``minimum``
    and ``maximum``: a jaxlab or dm_env bounded spec): an integer within the bounds when the spec's
    dtype is an integer type (returned as int), else a finite number within them (as float).
    Raises TypeError for a wrong type (a float for an integer action, a str, a bool, None, an
    array with dimensions) and ValueError for NaN, ±inf or a value out of bounds."""
    what = f"action {name!r}"
    if np.dtype(spec.dtype).kind in "iu":
        return integer_value(where, what, value, int(spec.minimum), int(spec.maximum))
    return number_value(where, what, value, float(spec.minimum), float(spec.maximum))


def dict_action(where: str, action: Any, specs: Mapping[str, Any]) -> Dict[str, Union[int, float]]:
    """``action`` (a dict action name -> scalar, any subset of ``specs``' names) checked against
    ``specs`` (name -> bounded scalar spec, see :func:`scalar_action`). Returns dict name -> int or
    float, in ``action``'s order.

    Raises TypeError when ``action`` is not a dict (a list, None, an array),
    UnknownNameError (a KeyError and ValueError, with close-match suggestions, naming ``where``)
    for a name ``specs`` lacks, and :func:`scalar_action`'s errors for a bad value.
    """
    if not isinstance(action, Mapping):
        raise TypeError(refusal(where, "action", f"a dict of action names ({', '.join(specs)}) to numbers",
                                action))
    out = {}
    for name, value in action.items():
        if name not in specs:
            raise UnknownNameError(f"{where}: {unknown_name_error('action', name, specs)}")
        out[name] = scalar_action(where, name, value, specs[name])
    return out


def array_action(where: str, action: Any, spec: BoundedArraySpec) -> np.ndarray:
    """``action`` checked as DeepMind Lab checks ``Lab.step``'s: a numpy array of exactly ``spec``'s
    dtype and shape (np.intc[7] for DMLab), each element within its bounds (``spec.elements()``:
    LOOK_LEFT_RIGHT_PIXELS_PER_FRAME in [-512, 512], ...). Returns ``action``.

    Raises ValueError, DeepMind Lab's error for every bad action, naming ``where``, the offending
    element by name and its range, or the dtype and shape expected.
    """
    dtype, shape = np.dtype(spec.dtype), tuple(spec.shape)
    if not isinstance(action, np.ndarray) or action.dtype != dtype or action.shape != shape:
        expected = f"a numpy array of dtype {dtype.name} and shape {shape}"
        raise ValueError(refusal(where, "action", expected, action))
    for index, element in enumerate(spec.elements()):
        value = action[index]
        if not element["min"] <= value <= element["max"]:
            raise ValueError(refusal(where, f"action {element['name']!r} (element {index})",
                                     f"an integer in [{element['min']}, {element['max']}]", value))
    return action


__all__ = ["array_action", "dict_action", "scalar_action"]
