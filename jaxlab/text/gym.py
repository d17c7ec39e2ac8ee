"""``jaxlab.text.gym``: the ``textworld.gym`` drop-in (``import jaxlab.text.gym as tw_gym``); home: ``jaxlab.hosts.text.gym``."""
from jaxlab.hosts.text.gym import (TextworldBatchGymEnv, TextworldGymEnv, as_env_infos, make, register_game,
                                   register_games)

__all__ = ["TextworldBatchGymEnv", "TextworldGymEnv", "as_env_infos", "make", "register_game", "register_games"]
