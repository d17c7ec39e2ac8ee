"""jaxlab: DeepMind Lab-family environments as pure JAX kernels.

``jaxlab.make(name_or_path, **settings)`` makes any level of any family;
``jaxlab.levels.names()`` lists them. The families' kernels live in
``jaxlab.kernels`` (first person, grid, memory, PsychLab, text); their public faces are
``jaxlab.grid``, ``jaxlab.text`` and ``jaxlab.memorytasks``, imported on first use; the
originals' host APIs are ``jaxlab.Lab`` (DeepMind Lab), ``jaxlab.grid.Lab2d`` (Lab2D) and
``jaxlab.memorytasks.load`` (dm_memorytasks). ``jaxlab.sharded(env)`` splits one batch over
every device.
"""
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


def __getattr__(name: str):
    """The families' faces and the layers, imported on first attribute access (``jaxlab.grid``, ...)."""
    if name == "grid":
        import jaxlab.grid as module
    elif name == "text":
        import jaxlab.text as module
    elif name == "memorytasks":
        import jaxlab.memorytasks as module
    elif name == "kernels":
        import jaxlab.kernels as module
    elif name == "render":
        import jaxlab.render as module
    elif name == "hosts":
        import jaxlab.hosts as module
    else:
        raise AttributeError(f"module 'jaxlab' has no attribute {name!r}")
    return module


__all__ = ["ArraySpec", "Bank", "BoundedArraySpec", "DiscreteArraySpec", "Env", "Lab", "StepType", "TimeStep",
           "UnknownNameError", "grid", "hosts", "kernels", "levels", "make", "memorytasks", "render", "sharded",
           "suite", "text", "wrappers"]
