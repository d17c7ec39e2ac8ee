"""jaxlab: DeepMind Lab-family environments as pure JAX kernels."""
from jaxlab import levels
from jaxlab.env import Env
from jaxlab.errors import UnknownNameError
from jaxlab.registry import make
from jaxlab import wrappers
from jaxlab.lab import Lab
from jaxlab.types import ArraySpec, BoundedArraySpec, DiscreteArraySpec, StepType, TimeStep

__version__ = "0.1.0"

__all__ = ["ArraySpec", "BoundedArraySpec", "DiscreteArraySpec", "Env", "StepType", "TimeStep",
           "Lab", "UnknownNameError", "levels", "make", "wrappers"]
