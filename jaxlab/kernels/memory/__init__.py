"""The memory-task suite's first-person kernel: ``MemoryTaskEnv``, dm_memorytasks' four sticky float
actions over the first-person world. The tasks, their splits and names are level data
(``jaxlab.levels.dmlab.memory``); the screen tasks run on ``jaxlab.kernels.psychlab``."""
from jaxlab.kernels.memory.env import MemoryTaskEnv

__all__ = ["MemoryTaskEnv"]
