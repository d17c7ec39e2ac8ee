"""The goal-navigation group of the memory suite: ``explore_goal_locations`` (``goal_maze``) and the
three arena tasks (``goal_arenas``)."""
from jaxlab.levels.dmlab.memory.goal_arenas import ARENA_TASKS
from jaxlab.levels.dmlab.memory.goal_maze import EXPLORE_GOAL_LOCATIONS

TASKS = (EXPLORE_GOAL_LOCATIONS,) + ARENA_TASKS
