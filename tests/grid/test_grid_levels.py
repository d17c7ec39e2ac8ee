"""The built-in multi-player grid levels: well-formed WorldSpecs, settings."""
import numpy as np
import pytest

from jaxlab.errors import UnknownNameError
from jaxlab.levels.lab2d import clean_up, commons_harvest, predator_prey, running_with_scissors
from jaxlab.levels.lab2d.spec import GridSpec

LEVELS = {
    "jaxlab_predator_prey": predator_prey,
    "jaxlab_commons_harvest": commons_harvest,
    "jaxlab_clean_up": clean_up,
    "jaxlab_running_with_scissors": running_with_scissors,
}


def check_spec(spec: GridSpec):
    """Assert the cross-references and shapes of a GridSpec hold together."""
    assert spec.map and len({len(row) for row in spec.map}) == 1, "map not rectangular"
    height, width = len(spec.map), len(spec.map[0])
    assert 15 <= height <= 25 and 15 <= width <= 25
    names = [s.name for s in spec.states]
    assert len(names) == len(set(names)), "duplicate state names"
    by_name = {s.name: s for s in spec.states}
    assert len(spec.layers) == len(set(spec.layers))
    for state in spec.states:
        assert state.layer in spec.layers, (state.name, state.layer)
        assert len(state.char) == 1
        if state.sprite is not None:
            rows = state.sprite.rows
            assert len(rows) == len(rows[0]) and all(len(r) == len(rows) for r in rows), state.name
            used = set("".join(rows))
            assert used <= set(state.sprite.palette), (state.name, used - set(state.sprite.palette))
            for colour in state.sprite.palette.values():
                assert len(colour) in (3, 4) and all(0 <= c <= 255 for c in colour)
    for char in {c for row in spec.map for c in row}:
        assert char in spec.char_map, f"map char {char!r} missing from char_map"
    for char, placed in spec.char_map.items():
        layers = [by_name[name].layer for name in placed]
        assert len(layers) == len(set(layers)), f"{char!r} puts two states on one layer"
    avatar_layers = {by_name[p.state].layer for p in spec.players}
    assert len(avatar_layers) == 1
    assert spec.players and len({p.state for p in spec.players}) == len(spec.players)
    for spawn in {p.spawn for p in spec.players}:
        assert spawn in by_name
        cells = sum(row.count(c) for row in spec.map for c, placed in spec.char_map.items() if spawn in placed)
        needed = sum(p.spawn == spawn for p in spec.players)
        assert cells >= needed, (spawn, cells, needed)
    walls = [s for s in spec.states if "wall" in s.groups]
    assert walls and all(w.layer in avatar_layers and w.blocks_beams for w in walls)

    def known(name, empty_ok=False):
        return name is None or (empty_ok and name == "") or name in by_name

    for c in spec.contacts:
        assert known(c.mover) and known(c.other) and known(c.becomes, True), c
        assert c.on in ("enter", "leave")
        assert c.collect is None or 0 <= c.collect < len(spec.items)
    actions = [b.action for b in spec.beams]
    assert len(actions) == len(set(actions))
    for b in spec.beams:
        assert b.action.startswith("fire") and b.length >= 1
        assert b.overlay is None or b.overlay in by_name
    for h in spec.beam_hits:
        assert h.beam in actions and known(h.target) and known(h.becomes, True), h
    for t in spec.transitions:
        assert known(t.source) and known(t.target, True) and known(t.neighbour), t
        probs = t.probability if isinstance(t.probability, tuple) else (t.probability,)
        assert all(0.0 <= p <= 1.0 for p in probs)
        if t.depletion is not None:
            assert known(t.depletion.state) and all(known(n) for n in t.depletion.among)
    if spec.matrix_game is not None:
        assert spec.matrix_game.beam in actions
        k = len(spec.items)
        assert len(spec.matrix_game.payoff) == k and all(len(r) == k for r in spec.matrix_game.payoff)
    assert len(spec.initial_inventory) in (0, len(spec.items))
    assert spec.movement == "relative" and spec.sprite_size in (8, 16)
    assert (spec.view.left, spec.view.right, spec.view.forward, spec.view.backward) == (5, 5, 9, 1)


@pytest.mark.parametrize("name", sorted(LEVELS))
def test_default_build_is_valid(name):
    module = LEVELS[name]
    spec = module.build()
    assert isinstance(spec, GridSpec) and spec.name == name
    check_spec(spec)
    assert spec.settings == module.DEFAULT_SETTINGS
    assert spec.episode_frames == module.DEFAULT_SETTINGS["episodeLengthFrames"]


@pytest.mark.parametrize("name", sorted(LEVELS))
def test_settings_override(name):
    module = LEVELS[name]
    spec = module.build({"episodeLengthFrames": 77, "spriteSize": "16"})
    check_spec(spec)
    assert spec.episode_frames == 77 and spec.sprite_size == 16
    assert spec.settings["spriteSize"] == 16
    assert module.DEFAULT_SETTINGS["episodeLengthFrames"] != 77  # defaults untouched


@pytest.mark.parametrize("name", sorted(LEVELS))
def test_unknown_setting_suggests(name):
    with pytest.raises(UnknownNameError, match="episodeLengthFrames"):
        LEVELS[name].build({"episodeLenghtFrames": 10})


def test_player_counts():
    assert len(commons_harvest.build().players) == 5
    assert len(commons_harvest.build({"numPlayers": 7}).players) == 7
    assert len(clean_up.build({"numPlayers": "3"}).players) == 3
    assert len(running_with_scissors.build().players) == 2
    spec = predator_prey.build({"numPredators": 1, "numPrey": 4})
    check_spec(spec)
    assert [p.spawn for p in spec.players] == ["predator_spawn"] + ["prey_spawn"] * 4
    assert len({p.state for p in spec.players}) == 5
    with pytest.raises(ValueError):
        commons_harvest.build({"numPlayers": 99})
    with pytest.raises(ValueError):
        commons_harvest.build({"spriteSize": 12})


def test_level_rules_are_declared():
    spec = commons_harvest.build()
    (regrow,) = spec.transitions
    assert regrow.neighbour == "apple" and regrow.radius == 2 and regrow.probability[0] == 0.0
    assert {h.target for h in spec.beam_hits} == {p.state for p in spec.players}
    assert all(h.freeze_frames == 25 for h in spec.beam_hits)
    spec = clean_up.build()
    assert {b.action for b in spec.beams} == {"fireClean", "fireZap"}
    (apples,) = [t for t in spec.transitions if t.target == "apple"]
    assert apples.depletion.state == "polluted" and apples.depletion.zero_at == 0.4
    spec = running_with_scissors.build()
    assert spec.items == ("rock", "paper", "scissors") and spec.initial_inventory == (1, 1, 1)
    payoff = spec.matrix_game.payoff
    assert payoff[0][2] == 1 and payoff[2][1] == 1 and payoff[1][0] == 1  # R>S, S>P, P>R
    assert all(payoff[i][j] == -payoff[j][i] for i in range(3) for j in range(3))
    spec = predator_prey.build()
    catches = [c for c in spec.contacts if c.other.startswith("prey")]
    assert len(catches) == 2 * 3 and all(c.reward == 1 and c.other_reward == -1 for c in catches)
    assert all(c.respawn_frames > 0 for c in catches)
    eats = [c for c in spec.contacts if c.other == "apple"]
    assert {c.mover for c in eats} == {"prey1", "prey2", "prey3"}


# -- the levels running on the kernel --------------------------------------------------------------
# One env per level, jitted once (module scope): ``init`` = vmap(init_state), ``step`` = vmap(step),
# always on a batch of B envs, so every rule below reuses the same two compiled functions.

B = 2


class Level:
    """A level's env with its batched, jitted init and step, and grid-editing helpers."""

    def __init__(self, module):
        import jax

        from jaxlab.kernels.grid.env import GridEnv

        self.spec = module.build()
        self.env = GridEnv(self.spec)
        self._init = jax.jit(jax.vmap(self.env.init_state))
        self._step = jax.jit(jax.vmap(self.env.step))

    def reset(self, seed=0):
        """A batch of B fresh states."""
        import jax

        return self._init(jax.random.split(jax.random.PRNGKey(seed), B))

    def step(self, state, **actions):
        """One frame with ``actions`` ('1.move' -> value, or a per-env sequence); missing ones 0."""
        import jax.numpy as jnp

        full = {}
        for name in self.env.action_spec():
            value = actions.pop(name.replace(".", "_"), 0)
            full[name] = jnp.broadcast_to(jnp.asarray(value, jnp.int32), (B,))
        assert not actions, f"unknown actions {actions}"
        return self._step(state, full)

    def sid(self, name):
        """State id of ``name`` (1-based, spec order)."""
        return [s.name for s in self.spec.states].index(name) + 1

    def layer(self, name):
        """Layer index of state ``name``."""
        return self.spec.layers.index(self.spec.states[self.sid(name) - 1].layer)

    def edit(self, state, name, cells, new):
        """Set the cells ``[(row, col)]`` of ``name``'s layer to state ``new`` ('' empties) in every env."""
        import jax.numpy as jnp

        grid = np.array(state.grid)
        for r, c in cells:
            grid[:, self.layer(name), r, c] = self.sid(new) if new else 0
        return state.replace(grid=jnp.asarray(grid))

    def replace_all(self, state, old, new):
        """Every cell in state ``old`` becomes ``new`` (same layer) in every env."""
        import jax.numpy as jnp

        grid = np.array(state.grid)
        layer = grid[:, self.layer(old)]
        layer[layer == self.sid(old)] = self.sid(new)
        return state.replace(grid=jnp.asarray(grid))

    def count(self, state, name):
        """int[B]: how many cells hold ``name``."""
        return (np.array(state.grid)[:, self.layer(name)] == self.sid(name)).sum((1, 2))

    def place(self, state, player, row, col, orientation):
        """Move player ``player`` (0-based) to (row, col) facing ``orientation`` in every env."""
        import jax.numpy as jnp

        grid, pos = np.array(state.grid), np.array(state.pos)
        orient = np.array(state.orientation)
        sid = self.sid(self.spec.players[player].state)
        la = self.layer(self.spec.players[player].state)
        for b in range(B):
            r0, c0 = pos[b, player]
            if grid[b, la, r0, c0] == sid:
                grid[b, la, r0, c0] = 0
            assert grid[b, la, row, col] == 0, "target cell occupied"
            grid[b, la, row, col] = sid
            pos[b, player] = (row, col)
            orient[b, player] = orientation
        return state.replace(grid=jnp.asarray(grid), pos=jnp.asarray(pos), orientation=jnp.asarray(orient))


N, E, S, W = 0, 1, 2, 3
FORWARD, BACKWARD = 1, 3

_LEVEL_CACHE = {}


@pytest.fixture(scope="module")
def level():
    """level(name) -> Level, built and jitted once per module."""
    def get(name):
        if name not in _LEVEL_CACHE:
            _LEVEL_CACHE[name] = Level(LEVELS[name])
        return _LEVEL_CACHE[name]
    return get


@pytest.mark.parametrize("name", sorted(LEVELS))
def test_runs_batched_with_player_views(name, level):
    lv = level(name)
    state = lv.reset()
    rng = np.random.default_rng(0)
    px = lv.spec.sprite_size
    view = lv.spec.view
    shape = ((view.forward + view.backward + 1) * px, (view.left + view.right + 1) * px, 3)
    for _ in range(20):
        actions = {}
        for action, spec in lv.env.action_spec().items():
            actions[action.replace(".", "_")] = rng.integers(spec.minimum, spec.maximum + 1, B)
        state, ts = lv.step(state, **actions)
    obs = ts.observation
    assert obs["WORLD.RGB"].shape == (B, len(lv.spec.map) * px, len(lv.spec.map[0]) * px, 3)
    for n in range(1, len(lv.spec.players) + 1):
        assert obs[f"{n}.RGB"].shape == (B,) + shape and obs[f"{n}.RGB"].dtype == np.uint8
        assert obs[f"{n}.REWARD"].shape == (B,)
        assert obs[f"{n}.POSITION"].shape == (B, 2)
    assert np.array(state.frame).tolist() == [20] * B
    assert np.isfinite(np.array(ts.reward)).all()


def test_commons_regrowth_needs_neighbours(level):
    lv = level("jaxlab_commons_harvest")
    state = lv.reset(1)
    state = lv.replace_all(state, "apple", "apple_eaten")
    state = lv.edit(state, "apple", [(r, c) for r in range(len(lv.spec.map)) for c in range(len(lv.spec.map[0]))], "")
    # six seed apples, each with one eaten spot beside it (exactly one apple within radius 2) ...
    seeds = [(4, 4), (4, 12), (5, 19), (10, 5), (10, 19), (13, 12)]
    spots = [(r, c + 1) for r, c in seeds]
    state = lv.edit(state, "apple", seeds, "apple")
    state = lv.edit(state, "apple", spots, "apple_eaten")
    # ... and lone eaten spots with no apple within radius 2
    lonely = [(7, 8), (8, 21), (14, 4), (2, 16)]
    state = lv.edit(state, "apple", lonely, "apple_eaten")
    for _ in range(300):
        state, _ = lv.step(state)
        grid = np.array(state.grid)[:, lv.layer("apple")]
        assert (grid[:, [r for r, _ in lonely], [c for _, c in lonely]] == lv.sid("apple_eaten")).all()
    grid = np.array(state.grid)[:, lv.layer("apple")]
    regrown = (grid[:, [r for r, _ in spots], [c for _, c in spots]] == lv.sid("apple")).sum()
    assert regrown > 0
    assert (grid[:, [r for r, _ in seeds], [c for _, c in seeds]] == lv.sid("apple")).all()


def _check_zap_freezes(lv, row, col):
    """Player 1 at (row, col) facing east zaps player 2 just east of it (facing back west):
    for freeze_frames frames player 2's moves, turns and zaps do nothing, then it moves again."""
    freeze = lv.spec.settings["freezeFrames"]
    state = lv.reset(2)
    state = lv.place(state, 0, row, col, E)
    state = lv.place(state, 1, row, col + 1, W)
    state, _ = lv.step(state, **{"1_fireZap": 1})
    assert np.array(state.frozen)[:, 1].tolist() == [freeze] * B
    for _ in range(freeze):
        state, _ = lv.step(state, **{"2_move": BACKWARD, "2_turn": 1, "2_fireZap": 1})
        assert np.array(state.pos)[:, 1].tolist() == [[row, col + 1]] * B
        assert np.array(state.orientation)[:, 1].tolist() == [W] * B
        assert np.array(state.frozen)[:, 0].tolist() == [0] * B   # its zaps never left
    state, _ = lv.step(state, **{"2_move": BACKWARD})          # backward of west is east
    assert np.array(state.pos)[:, 1].tolist() == [[row, col + 2]] * B


def test_commons_zapped_player_freezes(level):
    _check_zap_freezes(level("jaxlab_commons_harvest"), 2, 5)


def test_clean_up_zapped_player_freezes(level):
    _check_zap_freezes(level("jaxlab_clean_up"), 2, 9)


def test_clean_up_apples_need_a_clean_river(level):
    lv = level("jaxlab_clean_up")
    state = lv.replace_all(lv.reset(3), "apple", "apple_eaten")
    dirty = lv.replace_all(state, "water", "polluted")
    clean = lv.replace_all(state, "polluted", "water")
    for _ in range(40):
        dirty, _ = lv.step(dirty)
        clean, _ = lv.step(clean)
        assert lv.count(dirty, "apple").tolist() == [0] * B
        assert lv.count(dirty, "water").tolist() == [0] * B
    assert (lv.count(clean, "apple") > 0).all()


def test_clean_up_beam_cleans_the_river(level):
    lv = level("jaxlab_clean_up")
    state = lv.reset(4)
    state = lv.place(state, 0, 2, 8, W)
    targets = [(1, 5), (2, 5), (3, 6)]   # ahead, within the beam's length and radius
    behind = (2, 2)                       # beyond the beam's reach
    state = lv.edit(state, "water", targets + [behind], "polluted")
    state, _ = lv.step(state, **{"1_fireClean": 1})
    background = np.array(state.grid)[:, lv.layer("water")]
    for r, c in targets:
        assert background[:, r, c].tolist() == [lv.sid("water")] * B
    assert background[:, behind[0], behind[1]].tolist() == [lv.sid("polluted")] * B
    assert (np.array(state.grid)[:, lv.layer("clean_beam")] == lv.sid("clean_beam")).any((1, 2)).all()


def test_running_with_scissors_matrix_game(level):
    import jax.numpy as jnp

    lv = level("jaxlab_running_with_scissors")
    state = lv.reset(5)
    state = lv.place(state, 0, 6, 5, E)
    state = lv.place(state, 1, 6, 6, W)
    rock, scissors = [1, 0, 0], [0, 0, 1]
    # env 0: the firer holds rock, the other scissors; env 1 the other way round
    inventory = jnp.asarray([[rock, scissors], [scissors, rock]], jnp.int32)
    state = state.replace(inventory=inventory)
    state, ts = lv.step(state, **{"1_fireZap": 1})
    reward = np.array(state.reward)
    assert reward[:, 0].tolist() == [1.0, -1.0]
    assert reward[:, 1].tolist() == [-1.0, 1.0]
    assert np.array(ts.observation["1.REWARD"]).tolist() == [1.0, -1.0]
    assert np.array(state.inventory).tolist() == [[[1, 1, 1]] * 2] * B
    respawn = lv.spec.matrix_game.respawn_frames
    assert (np.array(state.respawn)[:, 1] > 0).all() and (np.array(state.respawn)[:, 0] == 0).all()
    assert (np.array(state.grid)[:, lv.layer("player2")] == lv.sid("player2")).sum() == 0
    for _ in range(respawn + 1):
        state, _ = lv.step(state)
    assert np.array(state.respawn).tolist() == [[0, 0]] * B
    pos = np.array(state.pos)[:, 1]
    assert all(np.array(state.grid)[b, lv.layer("player2"), pos[b, 0], pos[b, 1]] == lv.sid("player2")
               for b in range(B))


def test_running_with_scissors_collects(level):
    lv = level("jaxlab_running_with_scissors")
    state = lv.place(lv.reset(6), 0, 1, 9, E)   # a rock lies at (1, 10)
    state, _ = lv.step(state, **{"1_move": FORWARD})
    assert np.array(state.inventory)[:, 0].tolist() == [[2, 1, 1]] * B
    assert np.array(state.grid)[:, lv.layer("rock"), 1, 10].tolist() == [lv.sid("rock_empty")] * B


def test_predator_prey_predator_catches_prey(level):
    lv = level("jaxlab_predator_prey")
    predator, prey = 0, lv.spec.settings["numPredators"]
    assert lv.spec.players[prey].state == "prey1"
    state = lv.reset(7)
    state = lv.place(state, predator, 2, 5, E)
    state = lv.place(state, prey, 2, 6, E)
    state, _ = lv.step(state, **{"1_move": FORWARD})
    reward = np.array(state.reward)
    assert reward[:, predator].tolist() == [1.0] * B and reward[:, prey].tolist() == [-1.0] * B
    assert (np.array(state.respawn)[:, prey] > 0).all()
    assert (np.array(state.grid)[:, lv.layer("prey1")] == lv.sid("prey1")).sum() == 0
    for _ in range(lv.spec.settings["preyRespawnFrames"] + 1):
        state, _ = lv.step(state)
    assert np.array(state.respawn)[:, prey].tolist() == [0] * B
    spawns = {(r, c) for r, row in enumerate(lv.spec.map) for c, ch in enumerate(row) if ch == "Y"}
    for b in range(B):
        r, c = np.array(state.pos)[b, prey]
        assert (r, c) in spawns
        assert np.array(state.grid)[b, lv.layer("prey1"), r, c] == lv.sid("prey1")


def test_predator_prey_prey_eats_apples(level):
    lv = level("jaxlab_predator_prey")
    prey = lv.spec.settings["numPredators"]
    state = lv.place(lv.reset(8), prey, 3, 2, E)   # an apple grows at (3, 3)
    state, _ = lv.step(state, **{f"{prey + 1}_move": FORWARD})
    assert np.array(state.reward)[:, prey].tolist() == [1.0] * B
    assert np.array(state.grid)[:, lv.layer("apple"), 3, 3].tolist() == [lv.sid("apple_eaten")] * B
    # a predator walking over an apple leaves it
    state = lv.place(state, 0, 6, 5, E)            # an apple grows at (6, 6)
    state, _ = lv.step(state, **{"1_move": FORWARD})
    assert np.array(state.reward)[:, 0].tolist() == [0.0] * B
    assert np.array(state.grid)[:, lv.layer("apple"), 6, 6].tolist() == [lv.sid("apple")] * B
