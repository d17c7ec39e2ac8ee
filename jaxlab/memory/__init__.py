"""The memory-task suite's device API: dm_memorytasks' four sticky float actions over jaxlab kernels.

``MemoryTaskEnv`` (first-person tasks) and ``PsychlabEnv`` (``jaxlab.psychlab``: the screen tasks) share
the action layout and the sticky rule of ``jaxlab.memory.actions``; the tasks, their splits and their
names live in ``jaxlab.levels.dmlab.memory``; the original's host API is ``jaxlab.memorytasks``.
"""
