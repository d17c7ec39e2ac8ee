"""TextWorld's gym API (``textworld.gym``) over the jaxlab text kernel: change the import, keep the loop.

    import jaxlab.text.gym as tw_gym                 # instead of: import textworld.gym as tw_gym
    env_id = tw_gym.register_games(["a.json", "b.json"], request_infos=EnvInfos(admissible_commands=True),
                                   batch_size=32, auto_reset=True, max_episode_steps=100)
    env = tw_gym.make(env_id)
    obs, infos = env.reset()                          # lists of length batch_size, infos a dict of lists
    obs, scores, dones, infos = env.step(commands)    # scores: each game's score so far

As in TextWorld: ids are ``tw-v0``, ``tw-v1``, ... (``tw-<name>-v0`` with ``name``); each ``reset``
draws the next ``batch_size`` games from the pool, shuffled (``seed``, 1234 by default) and cycled,
reshuffled at every pass; ``auto_reset`` restarts a finished slot's game on the next ``step``;
without it a finished slot keeps reporting its last state; ``max_episode_steps`` (50 by default)
ends a game after that many commands. Without ``batch_size`` the env plays one game at a time with
single values (``step(str)``). EnvInfos is :class:`jaxlab.text.EnvInfos` (every TextWorld 1.7
field; ``textworld.EnvInfos`` objects are accepted too). Games are ``.json`` files (or
:class:`jaxlab.text.Game`); all slots step in one jitted, vmapped call (``BatchEnv``), and
``asynchronous`` is accepted and has nothing to do.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

import numpy as np

from jaxlab.errors import unknown_name_error
from jaxlab.hosts.text.batch import BatchEnv
from jaxlab.hosts.text.game_api import Game
from jaxlab.hosts.text.host import EnvInfos, checked_infos

#: env id -> its registration: ``entry_point`` (the class) and ``kwargs``
registry: Dict[str, Dict[str, Any]] = {}


def as_env_infos(request_infos) -> EnvInfos:
    """jaxlab's EnvInfos for ``request_infos``: None (nothing), a jaxlab EnvInfos, or TextWorld's
    (``textworld.EnvInfos``); TypeError naming ``request_infos`` otherwise (``host.checked_infos``)."""
    return checked_infos(request_infos, "request_infos")


def shuffled_cycle(items: Sequence, rng: np.random.RandomState) -> Iterator:
    """The items in order, then reshuffled (``rng``) for every further pass, without end."""
    items = list(items)
    yield from items
    while True:
        rng.shuffle(items)
        yield from items


class TextworldBatchGymEnv:
    """``batch_size`` games of a pool at once with TextWorld's batch gym signatures (lists in, lists
    and a dict of lists out). Arguments as ``register_games``."""

    def __init__(self, gamefiles: Sequence[Union[str, Game]], request_infos=None, batch_size: int = 1,
                 asynchronous: bool = True, auto_reset: bool = False, max_episode_steps: Optional[int] = None):
        self.gamefiles = list(gamefiles)
        if not self.gamefiles:
            raise ValueError("register_games: no game files")
        self.request_infos = as_env_infos(request_infos)
        self.batch_size = int(batch_size)
        self.batch_env = BatchEnv(self.gamefiles, self.request_infos, batch_size=self.batch_size,
                                  auto_reset=auto_reset, max_episode_steps=max_episode_steps, cycle=False)
        self.last_commands: List[Optional[str]] = [None] * self.batch_size
        self.obs: Optional[List[str]] = None
        self.seed(1234)

    def seed(self, seed: Optional[int] = None) -> List[Optional[int]]:
        """Shuffle the pool's order with ``seed``; returns ``[seed]``."""
        rng = np.random.RandomState(seed)
        order = list(range(len(self.gamefiles)))
        rng.shuffle(order)
        self._order = shuffled_cycle(order, rng)
        return [seed]

    def skip(self, nb_games: int = 1) -> None:
        """Skip the next ``nb_games`` games of the pool's order."""
        for _ in range(nb_games):
            next(self._order)

    def reset(self):
        """Start the next ``batch_size`` games: ``(observations, infos)``."""
        games = [next(self._order) for _ in range(self.batch_size)]
        self.last_commands = [None] * self.batch_size
        self.obs, infos = self.batch_env.reset(games)
        return self.obs, infos

    def step(self, commands: Sequence[str]):
        """One command per slot: ``(observations, scores, dones, infos)``."""
        if not isinstance(commands, (list, tuple)):
            raise TypeError(f"step: expected a list of {self.batch_size} commands, got {type(commands).__name__}")
        self.last_commands = list(commands)
        self.obs, scores, dones, infos = self.batch_env.step(commands)
        return self.obs, scores, dones, infos

    def close(self) -> None:
        """Nothing to release (kept for the gym interface)."""

    def render(self, mode: str = "human") -> Optional[str]:
        """Each slot's last command and observation, separated by ``-----`` lines: printed
        (``human``) or returned (``text``, ``ansi``)."""
        parts = []
        for command, ob in zip(self.last_commands, self.obs or []):
            parts.append(("> " + command + "\n" if command is not None else "") + ob.rstrip() + "\n")
        text = "\n-----\n".join(parts) + "\n"
        if mode == "human":
            print(text, end="")
            return None
        return text


class TextworldGymEnv(TextworldBatchGymEnv):
    """One game at a time with TextWorld's single gym signatures: ``reset() -> (obs, infos)``,
    ``step(command) -> (obs, score, done, infos)``."""

    def __init__(self, gamefiles: Sequence[Union[str, Game]], request_infos=None, batch_size: int = 1,
                 asynchronous: bool = True, auto_reset: bool = False, max_episode_steps: Optional[int] = None):
        super().__init__(gamefiles, request_infos, 1, asynchronous, auto_reset, max_episode_steps)

    def reset(self):
        """Start the next game: ``(observation, infos)``."""
        obs, infos = super().reset()
        return obs[0], {k: v[0] for k, v in infos.items()}

    def step(self, command: str):
        """Play ``command``: ``(observation, score, done, infos)``."""
        if not isinstance(command, str):
            raise TypeError(f"step: expected a command string, got {type(command).__name__}")
        obs, scores, dones, infos = super().step([command])
        return obs[0], scores[0], dones[0], {k: v[0] for k, v in infos.items()}


def register_games(gamefiles: Sequence[Union[str, Game]], request_infos=None, batch_size: Optional[int] = None,
                   auto_reset: bool = False, max_episode_steps: int = 50, asynchronous: bool = True,
                   name: str = "", **kwargs) -> str:
    """Register an env cycling through ``gamefiles`` (``.json`` paths or Games); returns its id.

    ``request_infos``: what each step reports; ``batch_size``: games at once (None: one game,
    single values); ``auto_reset``: finished games restart on the next step; ``max_episode_steps``:
    commands per game; ``name``: the id is ``tw-<name>-v<k>``. Other keyword arguments of TextWorld's
    (``wrappers``) are refused by name.
    """
    if kwargs:
        raise TypeError(f"register_games: unsupported argument(s) {', '.join(sorted(kwargs))}")
    if isinstance(gamefiles, (str, Game)):
        raise TypeError("register_games: expected a list of game files (use register_game for one)")
    env_id = f"tw-{name}-v0" if name else "tw-v0"
    if env_id in registry:
        base = env_id.rsplit("-v", 1)[0]
        versions = [int(i.rsplit("-v", 1)[1]) for i in registry if i.rsplit("-v", 1)[0] == base]
        env_id = f"{base}-v{max(versions) + 1}"
    registry[env_id] = dict(id=env_id, entry_point=TextworldGymEnv if batch_size is None else TextworldBatchGymEnv,
                            kwargs=dict(gamefiles=list(gamefiles), request_infos=request_infos,
                                        batch_size=1 if batch_size is None else batch_size, asynchronous=asynchronous,
                                        auto_reset=auto_reset, max_episode_steps=max_episode_steps))
    return env_id


def register_game(gamefile: Union[str, Game], request_infos=None, batch_size: Optional[int] = None,
                  auto_reset: bool = False, max_episode_steps: int = 50, asynchronous: bool = True,
                  name: str = "", **kwargs) -> str:
    """``register_games`` with a single game."""
    return register_games([gamefile], request_infos, batch_size, auto_reset, max_episode_steps, asynchronous,
                          name, **kwargs)


def make(env_id: str) -> TextworldBatchGymEnv:
    """A new env of a registered id; an unknown id raises UnknownNameError with close matches."""
    if env_id not in registry:
        raise unknown_name_error("text gym env id", env_id, tuple(registry))
    entry = registry[env_id]
    return entry["entry_point"](**entry["kwargs"])
