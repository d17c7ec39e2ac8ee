"""The PsychLab kernel: a screen, a gaze that moves over it, trials answered by looking.

``PsychlabEnv`` runs a ``PsychlabTask`` (level data: ``jaxlab.levels.dmlab.psychlab.task``); the
screen is drawn by ``jaxlab.render.psychlab``.
"""
from jaxlab.kernels.psychlab.env import PsychlabEnv, PsychlabState

__all__ = ["PsychlabEnv", "PsychlabState"]
