"""DMLab-30's four PsychLab levels: ``SCREEN_LEVELS`` name -> the level's ``ScreenTask``, in DMLab-30's
order; the env that runs any mix of them is ``jaxlab.kernels.psychlab.dmlab30_env``."""
from __future__ import annotations

from jaxlab.levels.dmlab.dmlab30.psychlab_arbitrary_visuomotor_mapping import ArbitraryVisuomotorMapping
from jaxlab.levels.dmlab.dmlab30.psychlab_continuous_recognition import ContinuousRecognition
from jaxlab.levels.dmlab.dmlab30.psychlab_sequential_comparison import SequentialComparison
from jaxlab.levels.dmlab.dmlab30.psychlab_visual_search import VisualSearch

SCREEN_LEVELS = {task.name: task for task in (ArbitraryVisuomotorMapping(), ContinuousRecognition(),
                                              SequentialComparison(), VisualSearch())}
