"""jaxlab: DeepMind Lab-family environments as pure JAX kernels.

``jaxlab.make(name_or_path, **settings)`` makes any level of any family;
``jaxlab.levels.names()`` lists them. The families: first-person
(``jaxlab.first_person``), grid worlds (``jaxlab.grid``), text quests
(``jaxlab.text``) and the memory-task suite (``jaxlab.memory``), imported on first use; the
originals' host APIs are ``jaxlab.Lab`` (DeepMind Lab), ``jaxlab.grid.Lab2d`` (Lab2D) and
``jaxlab.memorytasks.load`` (dm_memorytasks). ``jaxlab.sharded(env)`` splits one batch over
every device.
"""
import importlib

from jaxlab import levels, wrappers
from jaxlab.bank import Bank
from jaxlab.env import Env
from jaxlab.errors import UnknownNameError
from jaxlab.hosts.dmlab import Lab
from jaxlab.registry import make
from jaxlab.suites import suite
from jaxlab.types import ArraySpec, BoundedArraySpec, DiscreteArraySpec, StepType, TimeStep
from jaxlab.wrappers.sharding import sharded

__version__ = "0.1.0"

#: families and layers imported on first attribute access (``jaxlab.grid``, ``jaxlab.text``, ...)
_LAZY = ("first_person", "grid", "hosts", "memory", "memorytasks", "render", "text")


def __getattr__(name: str):
    if name in _LAZY:
        return importlib.import_module(f"jaxlab.{name}")
    raise AttributeError(f"module 'jaxlab' has no attribute {name!r}")


__all__ = ["ArraySpec", "Bank", "BoundedArraySpec", "DiscreteArraySpec", "Env", "Lab", "StepType", "TimeStep",
           "UnknownNameError", "first_person", "grid", "hosts", "levels", "make", "memory", "memorytasks", "render",
           "sharded", "suite", "text", "wrappers"]
