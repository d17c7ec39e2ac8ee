"""The PsychLab memory tasks' kernel: a screen, a gaze that moves over it, trials answered by looking.

``PsychlabEnv`` (``env``) runs a ``PsychlabTask`` (``task``: the trial phases, layouts and what a
trial shows); the four tasks themselves live in ``jaxlab.levels.dmlab.memory.psychlab_tasks``; the
screen is drawn by ``jaxlab.render.psychlab``.
"""
from jaxlab.psychlab.env import PsychlabEnv, PsychlabState
from jaxlab.psychlab.task import PsychlabTask, Trial

__all__ = ["PsychlabEnv", "PsychlabState", "PsychlabTask", "Trial"]
