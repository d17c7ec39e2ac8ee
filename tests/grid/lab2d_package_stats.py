"""dmlab2d's shipped levels played in both engines and summed up per episode, for the fidelity comparison
(``benchmarks/lab2d_fidelity.py`` and ``test_lab2d_package_fidelity.py``).

jaxlab draws from JAX keys and dmlab2d from its own generator, so no shipped level can be compared step by
step: every one draws at its start (pushbox's room generator, chase_eat's and the avatars' spawn points and
orientations, commons_harvest's first apples, running_with_scissors' resources). Both engines play the same
actions (episode k: dmlab2d ``start(k, k)``, jaxlab ``start_state(PRNGKey(k), k, k)``), and each episode is
summed up by :func:`episode_stats` into numbers that either the rules fix (equal in every episode of both
engines) or chance spreads (compared by :func:`compare`'s tests):

- the world picture (``WORLD.RGB``) cut into its sprite cells: how many cells show each distinct sprite
  picture (walls, apples, mud, boxes, the avatar facing each way, beams...) at the start and on average over
  frames sampled every ``stride`` steps;
- the return, how many steps paid each distinct reward, the steps played and whether the episode ended;
- per-level numbers: ``WORLD.STEPS`` counting the steps, the start cell, ``1.INVENTORY``, ``1.CONTRIB``.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np
from scipy import stats

try:
    from grid.lab2d_reference import action_spec, dmlab2d_trajectory, jit_large, random_actions
except ImportError:   # run from benchmarks/, whose grid.py hides the tests' grid folder: tests/grid on the path
    from lab2d_reference import action_spec, dmlab2d_trajectory, jit_large, random_actions


def _directions(t: int, k: int) -> dict:
    """MOVE (1..4: N, E, S, W) three steps each way, the first way turned by the episode k."""
    return {"MOVE": 1 + (t // 3 + k) % 4}


def _avatar(t: int, k: int, fires: Sequence[Tuple[str, int]]) -> dict:
    """An avatar that walks forward, turns every few steps (right on even k, left on odd) and fires each
    of ``fires`` ((action, period)) every period steps."""
    turn = t % (4 + k % 3) == 3
    action = {"1.move": 0 if turn else 1, "1.turn": (1 if k % 2 == 0 else -1) if turn else 0}
    for name, period in fires:
        action[name] = int(t % period == 0)
    return action


@dataclass(frozen=True)
class Level:
    """How one shipped level is compared: ``sprite`` the side of a sprite cell in WORLD.RGB (pixels),
    ``steps`` the benchmark's steps per episode, ``stride`` the steps between sampled frames, ``scripted``
    the scripted player ``(step t, episode k) -> action dict``, ``fixed`` the statistics its Lua fixes (walls: a cell's
    name is its mean colour and a digest of its picture, see ``_label``; the avatar may stand on any other)
    (they fail unless equal in every episode of both engines), ``numbers`` the observations summed up as
    numbers."""

    name: str
    sprite: int
    steps: int
    stride: int
    scripted: Callable[[int, int], dict]
    fixed: Tuple[str, ...] = ()
    numbers: Tuple[str, ...] = ()
    text: str = ""
    notes: str = ""


LEVELS: Dict[str, Level] = {level.name: level for level in (
    Level("pushbox", 8, 120, 10, _directions, ("start cells: 4 boxes and goals", "WORLD.STEPS counts the steps"),
          ("WORLD.STEPS",), "WORLD.TEXT",
          "the room is drawn by dmlab2d's pushbox generator from the seeded generator: random"),
    Level("chase_eat", 16, 30, 1, _directions,
          ("WORLD.STEPS counts the steps", "the nearest foe starts at least 6 away"), ("WORLD.STEPS",), "WORLD.TEXT",
          "spawn points shuffled, foes move and turn at random"),
    Level("commons_harvest", 8, 200, 10, lambda t, k: _avatar(t, k, (("1.zap", 3),)),
          ("start cells #757575/9aa0",), (), "",
          "each possible apple starts with probability 0.75, apples regrow at random, random spawn and "
          "orientation"),
    Level("clean_up", 16, 200, 10, lambda t, k: _avatar(t, k, (("1.fireClean", 2), ("1.fireFine", 7))),
          ("start cells #767676/2d8b",), ("1.CONTRIB",), "",
          "mud spawns at random after step 50, apples regrow at random, random spawn and orientation"),
    Level("running_with_scissors", 16, 200, 10, lambda t, k: _avatar(t, k, (("1.fireZap", 10),)),
          ("start cells #757575/0002",), ("1.INVENTORY",), "",
          "each resource cell is rock, paper or scissors at random, random spawn and orientation"),
)}


def level_actions(name: str, player: str, episodes: int, steps: int, first: int = 0) -> List[List[dict]]:
    """``episodes`` lists of ``steps`` action dicts: ``player`` "random" (uniform in dmlab2d's spec, seeded
    by the episode index) or "scripted" (the level's scripted player), episodes ``first``, ``first + 1``..."""
    from jaxlab.registry import dmlab2d_package
    if player == "random":
        spec = action_spec(dmlab2d_package.game_scripts() / "levels", name)
        return [random_actions(spec, steps, first + k) for k in range(episodes)]
    return [[LEVELS[name].scripted(t, first + k) for t in range(steps)] for k in range(episodes)]


def _kept(level: Level) -> List[str]:
    return ["WORLD.RGB", *level.numbers, *([level.text] if level.text else [])]


def _cells(frames: np.ndarray, side: int) -> Tuple[np.ndarray, np.ndarray]:
    """Sprite cells of ``frames`` uint8[F, H, W, 3] as (keys int64[F, cells, 2], mean colours [F, cells, 3])."""
    f, h, w, _ = frames.shape
    cells = frames.reshape(f, h // side, side, w // side, side, 3).transpose(0, 1, 3, 2, 4, 5)
    cells = cells.reshape(f, (h // side) * (w // side), side * side * 3)
    weights = np.random.default_rng(12345).integers(0, 2 ** 20, (cells.shape[-1], 2), dtype=np.int64)
    return cells.astype(np.int64) @ weights, cells.reshape(*cells.shape[:2], -1, 3).mean(axis=2)


_LABELS: Dict[Tuple[int, int], str] = {}


def _label(key, colour) -> str:
    """A sprite picture's name: its mean colour and a short digest of its key (the same in both engines)."""
    key = (int(key[0]), int(key[1]))
    if key not in _LABELS:
        digest = hashlib.sha1(repr(key).encode()).hexdigest()[:4]
        _LABELS[key] = "#%02x%02x%02x/%s" % (*np.round(colour).astype(int), digest)
    return _LABELS[key]


def _text_cell(text: str, char: str):
    cells = [(r, c) for r, row in enumerate(text.split("\n")) for c, ch in enumerate(row) if ch == char]
    return cells[0] if cells else None


def episode_stats(level: Level, frames: Dict[str, np.ndarray], sampled: Sequence[int], rewards: np.ndarray,
                  ended: np.ndarray) -> dict:
    """One episode summed up: ``frames`` {observation: [F, ...]} at steps ``sampled`` (0 = after start),
    ``rewards`` float[T] and ``ended`` bool[T] for the T steps played. Returns {statistic: number, bool or
    tuple} (tuples are categories)."""
    out = {"return": round(float(np.sum(rewards)), 4), "steps played": len(rewards), "ended": bool(np.any(ended))}
    for value in np.unique(np.round(rewards, 4)):
        out[f"steps paying {value:g}"] = int(np.sum(np.round(rewards, 4) == value))
    keys, colours = _cells(frames["WORLD.RGB"], level.sprite)
    for f in range(len(sampled)):
        found, first, counts = np.unique(keys[f], axis=0, return_index=True, return_counts=True)
        for key, at, count in zip(found, first, counts):
            label = _label(key, colours[f, at])
            if f == 0:
                out[f"start cells {label}"] = int(count)
            out[f"mean cells {label}"] = out.get(f"mean cells {label}", 0) + count / len(sampled)
    if "WORLD.STEPS" in frames:
        out["WORLD.STEPS counts the steps"] = bool(np.array_equal(frames["WORLD.STEPS"], np.asarray(sampled)))
    for name in level.numbers:
        if name == "WORLD.STEPS":
            continue
        last = np.asarray(frames[name][-1], float).reshape(-1)
        for i, value in enumerate(last):
            out[f"{name}[{i}] at the end" if last.size > 1 else f"{name} at the end"] = round(float(value), 4)
    if level.text:
        start = frames[level.text][0]
        out["start cell of P (category)"] = _text_cell(start, "P")
        if level.name == "chase_eat":
            player = _text_cell(start, "P")
            foes = [(r, c) for r, row in enumerate(start.split("\n")) for c, ch in enumerate(row) if ch == "F"]
            near = min(abs(player[0] - r) + abs(player[1] - c) for r, c in foes) if foes and player else 99
            out["the nearest foe starts at least 6 away"] = near >= 6
            out["the nearest foe's distance at the start"] = near
        if level.name == "pushbox":
            out["start cells: 4 boxes and goals"] = (start.count("B") + start.count("&"),
                                                    start.count("X") + start.count("&")) == (4, 4)
    return out


def _sampled(level: Level, steps: int, played: int) -> List[int]:
    return [i for i in range(0, steps + 1, level.stride) if i <= played]


def play_dmlab2d(level: Level, actions: List[List[dict]], first: int = 0) -> List[dict]:
    """dmlab2d's episodes ``first + k`` (``start(first + k, first + k)``) played with ``actions[k]``, each
    summed up by :func:`episode_stats`."""
    from jaxlab.registry import dmlab2d_package
    folder = dmlab2d_package.game_scripts() / "levels"
    out = []
    for k, acts in enumerate(actions):
        run = dmlab2d_trajectory(folder, level.name, seed=first + k, episode=first + k, actions=acts)
        played = len(run["rewards"])
        sampled = _sampled(level, len(acts), played)
        frames = {}
        for name in _kept(level):
            values = run["observations"][name]
            frames[name] = [values[i] for i in sampled] if isinstance(values, list) else np.asarray(values)[sampled]
        frames["WORLD.RGB"] = np.asarray(frames["WORLD.RGB"])
        out.append(episode_stats(level, frames, sampled, run["rewards"], run["ended"]))
    return out


@dataclass
class JaxPlayer:
    """A compiled level played under ``jit(vmap)``, observing only what the statistics read and keeping a
    frame every ``level.stride`` steps. ``env``: the level's ``RawEnv`` (``jaxlab.make("lab2d/<name>")``)."""

    level: Level
    env: object
    _play: dict = field(default_factory=dict)

    def __post_init__(self):
        from jaxlab.kernels.lab2d_raw import RawEnv
        self.env = RawEnv(self.env.spec, self.env.callbacks, _kept(self.level))
        self.names = list(self.env.action_spec())

    def _program(self, steps: int):
        import jax
        import jax.numpy as jnp

        from jaxlab.types import StepType
        env, names, stride = self.env, self.names, self.level.stride

        def play(episode, acts):
            state = env.start_state(jax.random.PRNGKey(episode), episode, episode)

            def one(s, a):
                s, ts = env.step(s, {n: a[i] for i, n in enumerate(names)})
                return s, (ts.reward, ts.step_type == StepType.LAST)

            def block(s, a):
                s, out = jax.lax.scan(one, s, a)
                return s, (s.obs, out)
            _, (obs, (rewards, ended)) = jax.lax.scan(block, state, acts.reshape(steps // stride, stride, -1))
            obs = jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a[None], b]), state.obs, obs)
            return obs, rewards.reshape(-1), ended.reshape(-1)
        return jit_large(jax.vmap(play))

    def __call__(self, actions: List[List[dict]], first: int = 0) -> List[dict]:
        """jaxlab's episodes ``first + k`` played with ``actions[k]`` (all of one length, a multiple of the
        stride), each summed up by :func:`episode_stats`."""
        import jax
        import jax.numpy as jnp
        steps = len(actions[0])
        if steps not in self._play:
            self._play[steps] = self._program(steps)
        table = jnp.asarray([[[a.get(n, 0) for n in self.names] for a in acts] for acts in actions], jnp.int32)
        obs, rewards, ended = jax.tree_util.tree_map(
            np.asarray, self._play[steps](jnp.arange(first, first + len(actions), dtype=jnp.int32), table))
        out = []
        for e in range(len(actions)):
            played = int(np.argmax(ended[e])) + 1 if ended[e].any() else steps
            sampled = _sampled(self.level, steps, played)
            rows = [i // self.level.stride for i in sampled]
            frames = {name: value[e, rows] for name, value in obs.items()}
            if self.level.text:
                frames[self.level.text] = [bytes(t.reshape(-1)).decode() for t in frames[self.level.text]]
            out.append(episode_stats(self.level, frames, sampled, rewards[e, :played], ended[e, :played]))
        return out


def _p_two_proportions(a: int, b: int, n: int, m: int) -> float:
    pooled = (a + b) / (n + m)
    if pooled in (0, 1):
        return 1.0
    z = (a / n - b / m) / np.sqrt(pooled * (1 - pooled) * (1 / n + 1 / m))
    return float(2 * stats.norm.sf(abs(z)))


def compare(level: Level, mine: List[dict], theirs: List[dict], alpha: float) -> List[tuple]:
    """Rows ``(statistic, kind, jaxlab, dmlab2d, test, p or None, passes)`` over the statistics either side
    has (a count missing from an episode is 0): "fixed" where both engines show one and the same value in
    every episode (a statistic in ``level.fixed`` fails otherwise), else "spread" by Welch's t on the means
    (numbers), a two-proportion z-test (bools) or chi-square homogeneity (categories), passing at p >= alpha.
    A reward value paid in one engine only counts 0 steps in the other's episodes."""
    rows = []
    names = sorted(set().union(*mine, *theirs), key=lambda s: (not s.startswith(("start cells:", "WORLD")), s))
    for name in names:
        a = [e.get(name, 0) for e in mine]
        b = [e.get(name, 0) for e in theirs]
        if name.endswith("(category)"):
            cats = sorted(set(a) | set(b), key=repr)
            table = np.array([[side.count(c) for c in cats] for side in (a, b)])
            p = 1.0 if len(cats) == 1 else float(stats.chi2_contingency(table).pvalue)
            rows.append((name, "spread", f"{len(set(a))} values", f"{len(set(b))} values", "chi-square", p, p >= alpha))
            continue
        if len(set(a) | set(b)) == 1:
            rows.append((name, "fixed", str(a[0]), str(b[0]), "every episode", None, True))
            continue
        if name in level.fixed:
            rows.append((name, "fixed", _spread(a), _spread(b), "every episode", None, False))
            continue
        if isinstance(a[0], bool) or isinstance(b[0], bool):
            p = _p_two_proportions(sum(a), sum(b), len(a), len(b))
            rows.append((name, "spread", f"{np.mean(a):.2f}", f"{np.mean(b):.2f}", "two-proportion z", p, p >= alpha))
            continue
        x, y = np.asarray(a, float), np.asarray(b, float)
        if x.std() == y.std() == 0:
            p = 1.0 if x.mean() == y.mean() else 0.0
        else:
            p = float(stats.ttest_ind(x, y, equal_var=False).pvalue)
        rows.append((name, "spread", _spread(x), _spread(y), "Welch t", p, p >= alpha))
    return rows


def _spread(values) -> str:
    values = np.asarray(values, float)
    return f"{values.mean():.2f} ± {values.std():.2f}"
