"""``jaxlab.memorytasks``: dm_memorytasks' API (``EnvironmentSettings``, ``load``), see ``jaxlab.hosts.memorytasks``.

The suite's level names: ``jaxlab.memorytasks.LEVEL_NAMES``; on device, ``jaxlab.make("memory/<level>")``.
"""
from jaxlab.hosts.memorytasks import EnvironmentSettings, MemoryTasksEnvironment, action_array, load, load_from_docker
from jaxlab.levels.dmlab.memory import TASK_NAMES, all_level_names

#: every level name of the suite (13 tasks × their suffixes)
LEVEL_NAMES = all_level_names()

__all__ = ["EnvironmentSettings", "LEVEL_NAMES", "MemoryTasksEnvironment", "TASK_NAMES", "action_array", "load",
           "load_from_docker"]
