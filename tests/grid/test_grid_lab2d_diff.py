"""Differential test: jaxlab's pushbox against the real dmlab2d pushbox.

For a few hundred dmlab2d pushbox episodes (one seed each) we build jaxlab's
state from the episode's first ``WORLD.TEXT`` (``pushbox_from_lab2d_text``),
play the same MOVE sequence in both engines and compare, at every step,
``WORLD.TEXT``, the reward (to 1e-6) and whether the step is LAST. The moves
come from a random agent biased towards boxes (so boxes are pushed onto and
off goals, into walls and into each other), run long enough to reach the
120-frame end, plus episodes solved by a small best-first Sokoban search over
the text (some after a random prefix), which end with the +10. All jaxlab
trajectories run at once: one ``jax.jit(jax.vmap(...))`` of a ``lax.scan``.
"""
from __future__ import annotations

import collections
import heapq

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.grid import GridEnv, pushbox_from_lab2d_text, world_text
from jaxlab.levels.lab2d import pushbox
from jaxlab.types import StepType

#: random-agent episodes
RANDOM_SEEDS = range(200)
#: episodes played by a searched solution: odd seeds after a random prefix; seeds with seed % 4 == 2 stand
#: still first, so the room is solved on the last frame
SOLVED_SEEDS = range(10_000, 10_032)
FRAMES = 120  # pushbox's episodeLengthFrames
MOVES = {1: (-1, 0), 2: (0, 1), 3: (1, 0), 4: (0, -1)}  # MOVE value -> (d_row, d_col): N, E, S, W


# ----- the host side: reading texts, the agent, the solver -----

def rows_of(text) -> list:
    """WORLD.TEXT (dmlab2d's 0-d object array of bytes, or a str) as a list of row strings."""
    if isinstance(text, np.ndarray):
        text = text.item()
    if isinstance(text, bytes):
        text = text.decode()
    return text.split("\n")[:-1]


def text_of(ts) -> str:
    return ts.observation["WORLD.TEXT"].item().decode()


def predicted_move(rows, pos, move):
    """Where Sokoban's rule puts the player (row, col) after ``move`` on the board ``rows``."""
    if move == 0:
        return pos
    dr, dc = MOVES[move]
    r, c = pos[0] + dr, pos[1] + dc
    ahead = rows[r][c]
    if ahead in " X":
        return (r, c)
    if ahead in "B&" and rows[r + dr][c + dc] in " X":
        return (r, c)
    return pos


def biased_move(rows, pos, rng, last):
    """A random move that often pushes an adjacent box (and keeps pushing it), sometimes into a wall or
    another box, or heads for a box."""
    pushable, blocked = [], []
    for m, (dr, dc) in MOVES.items():
        if rows[pos[0] + dr][pos[1] + dc] in "B&":
            (pushable if rows[pos[0] + 2 * dr][pos[1] + 2 * dc] in " X" else blocked).append(m)
    u = rng.random()
    if last in pushable and u < 0.4:
        return last
    if pushable and u < 0.6:
        return int(rng.choice(pushable))
    if blocked and 0.6 <= u < 0.65:
        return int(rng.choice(blocked))
    if u < 0.85:
        boxes = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "B&"]
        br, bc = boxes[int(rng.integers(len(boxes)))]
        towards = [m for m, (dr, dc) in MOVES.items()
                   if abs(pos[0] + dr - br) + abs(pos[1] + dc - bc) < abs(pos[0] - br) + abs(pos[1] - bc)
                   and rows[pos[0] + dr][pos[1] + dc] == " "]
        if towards:
            return int(rng.choice(towards))
    return int(rng.integers(0, 5))


def solve(rows, player, max_moves, max_states=20_000):
    """MOVE values solving the board (boxes 'B'/'&', goals 'X'/'&', player at ``player``) in at most
    ``max_moves`` moves, by a best-first search over pushes; None if none is found."""
    walls, boxes, goals = set(), set(), set()
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "*":
                walls.add((r, c))
            if ch in "B&":
                boxes.add((r, c))
            if ch in "X&":
                goals.add((r, c))
    goals = frozenset(goals)

    def dead(cell):  # a box in a corner off every goal can never move again
        blocked = [(cell[0] + dr, cell[1] + dc) in walls for dr, dc in MOVES.values()]
        return cell not in goals and any(blocked[i] and blocked[(i + 1) % 4] for i in range(4))

    def distance(bx):
        return sum(min(abs(b[0] - g[0]) + abs(b[1] - g[1]) for g in goals) for b in bx)

    def reachable(p, bx):  # cell -> (previous cell, move) for every cell the player can walk to
        parent, queue = {p: None}, collections.deque([p])
        while queue:
            cur = queue.popleft()
            for m, (dr, dc) in MOVES.items():
                nb = (cur[0] + dr, cur[1] + dc)
                if nb not in parent and nb not in walls and nb not in bx:
                    parent[nb] = (cur, m)
                    queue.append(nb)
        return parent

    def walk(parent, cell):
        out = []
        while parent[cell] is not None:
            cell, m = parent[cell]
            out.append(m)
        return out[::-1]

    start = frozenset(boxes)
    heap, seen, tie = [(distance(start), 0, player, start, ())], set(), 0
    while heap:
        _, _, p, bx, path = heapq.heappop(heap)
        if bx == goals:
            return list(path)
        parent = reachable(p, bx)
        if (min(parent), bx) in seen:
            continue
        seen.add((min(parent), bx))
        if len(seen) > max_states:
            return None
        for cell in parent:
            for m, (dr, dc) in MOVES.items():
                b = (cell[0] + dr, cell[1] + dc)
                beyond = (b[0] + dr, b[1] + dc)
                if b in bx and beyond not in walls and beyond not in bx and not dead(beyond):
                    moves = path + tuple(walk(parent, cell)) + (m,)
                    if len(moves) <= max_moves:
                        tie += 1
                        nbx = (bx - {b}) | {beyond}
                        heapq.heappush(heap, (3 * distance(nbx) + len(moves) // 4, tie, b, nbx, moves))
    return None


class Episode:
    """One dmlab2d episode: its first text, the moves played, and per step the text, reward and LAST."""

    def __init__(self, seed, first):
        self.seed, self.first = seed, first
        self.moves, self.texts, self.rewards, self.lasts = [], [], [], []

    def record(self, move, ts):
        self.moves.append(move)
        self.texts.append(text_of(ts))
        self.rewards.append(float(ts.reward))
        self.lasts.append(bool(ts.last()))
        return ts.last()


def play_dmlab2d(lab, dmlab2d):
    """Play every episode in dmlab2d; returns the Episodes."""
    episodes = []
    for seed in list(RANDOM_SEEDS) + list(SOLVED_SEEDS):
        env = dmlab2d.Environment(lab, ["WORLD.TEXT"], seed=seed)
        ep = Episode(seed, text_of(env.reset()))
        rng = np.random.default_rng(seed)
        rows = rows_of(ep.first)
        pos = next((r, row.index("P")) for r, row in enumerate(rows) if "P" in row)
        done, move = False, 0

        def play_random(until):
            nonlocal done, move, rows, pos
            while not done and len(ep.moves) < until:
                move = biased_move(rows, pos, rng, move)
                pos = predicted_move(rows, pos, move)
                done = ep.record(move, env.step({"MOVE": move}))
                before, rows = rows, rows_of(ep.texts[-1])
                move = move if rows != before else 0  # keep pushing only what moved

        if seed not in SOLVED_SEEDS:
            play_random(FRAMES)
        else:
            play_random(int(rng.integers(5, 30)) if seed % 2 else 0)
            plan = None if done else solve(rows, pos, max_moves=FRAMES - len(ep.moves))
            if plan is not None and seed % 4 == 2:  # stand still first: the last push comes on the last frame
                plan = [0] * (FRAMES - len(plan)) + plan
            ep.solved_by_search = plan is not None
            for move in plan or []:
                if done:
                    break
                done = ep.record(move, env.step({"MOVE": move}))
            play_random(FRAMES)  # the prefix stuck a box: play on to the end
        episodes.append(ep)
    return episodes


def play_jaxlab(episodes):
    """Play the same moves in jaxlab, every episode at once. Returns (grids int32[N, T, L, H, W],
    rewards float32[N, T], step types int32[N, T]); moves past an episode's end are 0."""
    env = GridEnv(pushbox.build(), observations=())
    states = [pushbox_from_lab2d_text(ep.first) for ep in episodes]
    batch = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
    moves = np.zeros((len(episodes), FRAMES), np.int32)
    for i, ep in enumerate(episodes):
        moves[i, :len(ep.moves)] = ep.moves

    def play(state, actions):
        def one(s, a):
            s, ts = env.step(s, {"MOVE": a})
            return s, (s.grid, ts.reward, ts.step_type)
        return jax.lax.scan(one, state, actions)[1]

    return jax.device_get(jax.jit(jax.vmap(play))(batch, jnp.asarray(moves)))


@pytest.fixture(scope="module")
def played():
    import dmlab2d   # a test dependency (pyproject's [test] extra): never skipped
    import dmlab2d.runfiles_helper  # noqa: F401  (registers the submodule)
    lab = dmlab2d.Lab2d(dmlab2d.runfiles_helper.find(), {"levelName": "pushbox"})
    episodes = play_dmlab2d(lab, dmlab2d)
    return episodes, play_jaxlab(episodes)


# ----- tests -----

def test_first_text_round_trips(played):
    episodes, _ = played
    for ep in episodes:
        state = pushbox_from_lab2d_text(ep.first)
        assert world_text(state) == ep.first, f"seed {ep.seed}"
        assert int(state.frame) == 0 and not bool(state.done)


def test_trajectories_agree_with_dmlab2d(played):
    episodes, (grids, rewards, step_types) = played
    compared = 0
    for i, ep in enumerate(episodes):
        for t, move in enumerate(ep.moves):
            ours = world_text(grids[i, t])
            where = (f"seed {ep.seed}, step {t + 1}, moves {ep.moves[:t + 1]}\n"
                     f"before:\n{ep.texts[t - 1] if t else ep.first}")
            assert ours == ep.texts[t], f"WORLD.TEXT differs at {where}\ndmlab2d:\n{ep.texts[t]}\njaxlab:\n{ours}"
            assert abs(float(rewards[i, t]) - ep.rewards[t]) <= 1e-6, \
                f"reward differs at {where}: dmlab2d {ep.rewards[t]}, jaxlab {float(rewards[i, t])}"
            ours_last = int(step_types[i, t]) == StepType.LAST
            assert ours_last == ep.lasts[t], f"LAST differs at {where}: dmlab2d {ep.lasts[t]}, jaxlab {ours_last}"
            compared += 1
        assert ep.lasts[-1], f"seed {ep.seed}: dmlab2d's episode did not end within the moves played"
    assert compared >= 20_000


def test_trajectories_cover_the_rules(played):
    """The moves exercise every rule: boxes onto and off goals, solved rooms, the 120-frame end."""
    episodes, _ = played
    rewards = np.array([r for ep in episodes for r in ep.rewards])
    assert len(episodes) >= 200
    assert np.isclose(rewards, 0.9).sum() >= 100            # a box pushed onto a goal
    assert np.isclose(rewards, -1.1).sum() >= 50            # a box pushed off a goal
    solved = [ep for ep in episodes if ep.rewards[-1] > 9]
    assert sum(getattr(ep, "solved_by_search", False) for ep in solved) >= 16
    assert any(len(ep.moves) == FRAMES for ep in solved)    # solved on the 120th frame
    assert sum(len(ep.moves) == FRAMES and ep.rewards[-1] < 9 for ep in episodes) >= 150


def test_own_rooms_round_trip():
    """A jaxlab pushbox reset, written as text and read back, is the same state."""
    env = GridEnv(pushbox.build(), observations=())
    reset = jax.jit(env.reset)
    for seed in range(5):
        state, _ = reset(jax.random.PRNGKey(seed))
        text = world_text(state)
        assert text == env.world_text(state)
        back = pushbox_from_lab2d_text(text)
        np.testing.assert_array_equal(back.grid, state.grid)
        np.testing.assert_array_equal(back.pos, state.pos)


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("****\n*P*\n****\n", "same length"),
    ("*****\n*PBX*\n*?  *\n*****\n", "unknown character '\\?'"),
    ("*****\n* BX*\n*   *\n*****\n", "exactly one player"),
    ("*****\n*PBX*\n*P  *\n*****\n", "exactly one player"),
    ("*****\n*PBB*\n* X *\n*****\n", "2 boxes .* but 1 goals"),
])
def test_malformed_text_raises(text, message):
    with pytest.raises(ValueError, match=message):
        pushbox_from_lab2d_text(text)


def test_text_as_bytes_or_array():
    text = "*****\n*PB&*\n*X  *\n*****\n"
    for given in (text, text.encode(), np.array(text.encode(), dtype=object)):
        state = pushbox_from_lab2d_text(given)
        assert state.grid.shape == (3, 4, 5) and state.pos.tolist() == [[1, 1]]
        assert world_text(state) == text


def test_grid_shape_must_match_settings():
    with pytest.raises(ValueError, match="gridShape"):
        pushbox_from_lab2d_text("*****\n*PBX*\n*****\n", settings={"gridShape": {"width": 10, "height": 10}})
