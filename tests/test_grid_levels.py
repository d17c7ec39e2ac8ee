"""The built-in multi-player grid levels: well-formed WorldSpecs, settings."""
import pytest

from jaxlab.errors import UnknownNameError
from jaxlab.grid.levels import chase_eat, clean_up, commons_harvest, running_with_scissors
from jaxlab.grid.spec import WorldSpec

LEVELS = {
    "chase_eat": chase_eat,
    "commons_harvest": commons_harvest,
    "clean_up": clean_up,
    "running_with_scissors": running_with_scissors,
}


def check_spec(spec: WorldSpec):
    """Assert the cross-references and shapes of a WorldSpec hold together."""
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
    assert isinstance(spec, WorldSpec) and spec.name == name
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
    spec = chase_eat.build({"numPredators": 1, "numPrey": 4})
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
    spec = chase_eat.build()
    catches = [c for c in spec.contacts if c.other.startswith("prey")]
    assert len(catches) == 2 * 3 and all(c.reward == 1 and c.other_reward == -1 for c in catches)
    assert all(c.respawn_frames > 0 for c in catches)
    eats = [c for c in spec.contacts if c.other == "apple"]
    assert {c.mover for c in eats} == {"prey1", "prey2", "prey3"}
