"""Lab2D-style grid level scripts (compile_lua.lab2d.compiler) and the properties API."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from compile_lua import cli
from compile_lua.authoring import compile_authored
from compile_lua.errors import LuaScriptError
from compile_lua.lab2d.compiler import compile_grid_level, compile_grid_script
import jaxlab
from jaxlab.errors import UnknownNameError
from jaxlab.levels.lab2d import properties as props
from jaxlab.levels.lab2d.properties import PropertyAttribute, PropertyResult
from jaxlab.levels.lab2d.spec import Beam, BeamHit, Contact, Player, Transition, GridSpec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "jaxlab" / "levels" / "lab2d" / "lua" / "apple_walk.lua"
FIRST_PERSON = ROOT / "jaxlab" / "levels" / "dmlab" / "lua" / "apple_orchard.lua"
SOURCE = EXAMPLE.read_text()


def variant(tmp_path, old, new, name="level.lua", text=None):
    """The example with ``old`` replaced by ``new`` (which must occur), written to tmp_path."""
    text = SOURCE if text is None else text
    assert old in text, old
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace(old, new, 1))
    return path


def line_of(path, fragment):
    """The 1-based line of ``path`` holding ``fragment``."""
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if fragment in line:
            return number
    raise AssertionError(fragment)


def error_of(path, **kwargs):
    with pytest.raises(LuaScriptError) as info:
        compile_grid_level(path, **kwargs)
    return info.value


# -- the example ---------------------------------------------------------------------------------

def test_example_compiles_to_the_expected_world_spec():
    spec = compile_grid_level(EXAMPLE)
    assert isinstance(spec, GridSpec) and spec.name == "apple_walk"
    assert spec.layers == ("background", "logic", "items", "pieces", "overlay")
    assert [s.name for s in spec.states] == ["apple", "grass", "player1", "player2", "spawnPoint", "sprout",
                                             "wall", "zap"]
    states = {s.name: s for s in spec.states}
    assert states["wall"].blocks_beams and states["wall"].layer == "pieces" and states["wall"].char == "W"
    assert states["apple"].groups == ("apples",) and states["spawnPoint"].sprite is None
    assert states["zap"].sprite.palette["z"] == (250, 230, 90, 110)
    assert all(len(r) == 8 for r in states["apple"].sprite.rows) and len(states["apple"].sprite.rows) == 8
    assert len(spec.map) == 7 and {len(r) for r in spec.map} == {11}
    assert spec.char_map == {" ": ("grass",), "A": ("grass", "apple"), "P": ("grass", "spawnPoint"),
                             "W": ("grass", "wall")}
    assert spec.players == (Player("player1", "spawnPoint"), Player("player2", "spawnPoint"))
    assert spec.contacts == tuple(Contact(mover=f"player{p}", other="apple", becomes="sprout", reward=1.0)
                                  for p in (1, 2))
    assert spec.beams == (Beam("fireZap", length=3, overlay="zap", cooldown=4),)
    assert spec.beam_hits == tuple(BeamHit("fireZap", f"player{p}", freeze_frames=6) for p in (1, 2))
    assert spec.transitions == (Transition("sprout", "apple", (0.0, 0.01, 0.03, 0.06), neighbour="apple",
                                           radius=2),)
    assert spec.episode_frames == 200 and spec.topology == "bounded" and spec.sprite_size == 8
    assert (spec.view.left, spec.view.right, spec.view.forward, spec.view.backward) == (2, 2, 3, 1)
    assert spec.settings == {"appleReward": 1.0, "episodeLengthFrames": 200, "freezeFrames": 6,
                             "regrowth": [0.0, 0.01, 0.03, 0.06], "regrowthRadius": 2, "zapCooldown": 4,
                             "zapLength": 3}


def test_settings_override_the_declared_defaults():
    spec = compile_grid_level(EXAMPLE, settings={"episodeLengthFrames": "50", "regrowth.2": "0.5",
                                                 "zapLength": 2})
    assert spec.episode_frames == 50 and spec.beams[0].length == 2
    assert spec.transitions[0].probability == (0.0, 0.5, 0.03, 0.06)
    assert spec.settings["episodeLengthFrames"] == 50 and spec.settings["regrowth"][1] == 0.5
    nested = compile_grid_level(EXAMPLE, settings={"regrowth": [0.0, 0.1, 0.2, 0.3]})
    assert nested.transitions[0].probability == (0.0, 0.1, 0.2, 0.3)
    with pytest.raises(UnknownNameError, match="Did you mean 'episodeLengthFrames'"):
        compile_grid_level(EXAMPLE, settings={"episodeLengthFrame": 10})
    with pytest.raises(ValueError, match="expected an integer"):
        compile_grid_level(EXAMPLE, settings={"zapLength": "long"})


def test_init_gets_flat_string_settings_without_declared_defaults(tmp_path):
    path = variant(tmp_path, "api.settings = {", "local DEFAULTS = {")
    path.write_text(path.read_text().replace("local s = self.settings", "local s = DEFAULTS").replace(
        "  self._players = PLAYERS", "  self._players = tonumber(settings['players.count'] or PLAYERS)"))
    spec = compile_grid_level(path, settings={"players": {"count": 1}})
    assert len(spec.players) == 1 and spec.settings == {"players": {"count": 1}}


def test_make_routes_grid_scripts_and_runs_under_jit_vmap():
    from jaxlab.kernels.grid.env import GridEnv

    env = jaxlab.make(str(EXAMPLE), level_settings={"episodeLengthFrames": 20})
    assert isinstance(env, GridEnv) and env.spec.episode_frames == 20
    # the script's observationSpec minus the host string WORLD.TEXT
    assert env.observations == ("WORLD.RGB", "1.RGB", "1.REWARD", "1.POSITION", "2.RGB", "2.REWARD",
                                "2.POSITION")
    batch = 3
    state, ts = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), batch))
    step = jax.jit(jax.vmap(env.step))
    moves = jnp.array([1, 2, 3], jnp.int32)
    for t in range(3):
        state, ts = step(state, {"1.move": moves, "2.move": (moves + t) % 5, "1.fireZap": jnp.ones(batch, jnp.int32)})
    for p in (1, 2):
        rgb = np.asarray(ts.observation[f"{p}.RGB"])
        assert rgb.shape == (batch, 40, 40, 3) and rgb.dtype == np.uint8 and rgb.any()
        assert ts.observation[f"{p}.POSITION"].shape == (batch, 2)
    assert ts.observation["WORLD.RGB"].shape == (batch, 56, 88, 3)
    with pytest.raises(UnknownNameError, match="width"):
        jaxlab.make(str(EXAMPLE), width=64)


def test_first_person_scripts_keep_their_route(tmp_path):
    grid = compile_authored(EXAMPLE, cache_directory=tmp_path)
    assert grid.kind == "lab2d" and grid.bank is None and grid.spec.name and grid.env_observations()
    first_person = compile_authored(FIRST_PERSON, cache_directory=tmp_path)
    assert first_person.kind == "dmlab" and first_person.grid is None and first_person.bank.size == 1
    with pytest.raises(ValueError, match="no GridSpec"):
        first_person.spec
    assert list(tmp_path.glob("*.jaxlab")) and compile_authored(FIRST_PERSON, cache_directory=tmp_path).cached


def test_kind_is_decided_by_the_api_not_the_text(tmp_path):
    """A factory-made api (no world/nextMap in the script's text) and a script returning an api-making
    function are told apart by the api table the one run produces."""
    module = tmp_path / "made.lua"
    module.write_text(SOURCE)
    factory = tmp_path / "level.lua"
    factory.write_text("return require 'made'\n")
    assert compile_authored(factory, cache_directory=tmp_path).kind == "lab2d"
    returns_function = variant(tmp_path, "\nreturn api", "\nreturn function() return api end", name="fn.lua")
    assert compile_authored(returns_function, cache_directory=tmp_path).kind == "lab2d"
    dmlab = tmp_path / "dm.lua"
    dmlab.write_text("return require 'factories.seek_avoid_factory'.createLevelApi{mapName = 'seekavoid_arena_01'}\n")
    assert compile_authored(dmlab, cache_directory=tmp_path).kind == "dmlab"


def test_cli_checks_a_grid_script_and_writes_nothing(capsys, tmp_path):
    path = variant(tmp_path, "episodeLengthFrames = 200", "episodeLengthFrames = 200")
    assert cli.main([str(path), "--set", "episodeLengthFrames=30"]) == 0
    out = capsys.readouterr().out
    assert "7x11 cells" in out and "30 frames" in out and "1.fireZap [0, 1]" in out and "WORLD.TEXT" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["level.lua"]
    bad = variant(tmp_path, "other = 'apple'", "other = 'appel'", name="bad.lua")
    assert cli.main([str(bad)]) == 1
    assert f"{bad}:{line_of(bad, 'appel')}: " in capsys.readouterr().err


# -- callbacks that would run every frame -----------------------------------------------------------

def test_advance_is_refused_with_its_location_and_the_declarative_form(tmp_path):
    path = variant(tmp_path, "return api\n", "function api:advance(frame)\n  return true, 0\nend\n\nreturn api\n")
    err = error_of(path)
    assert (err.path, err.line) == (str(path), line_of(path, "function api:advance"))
    assert "api:advance cannot be compiled" in str(err) and "every frame" in str(err)
    for field in ("contacts", "beams", "beamHits", "transitions", "matrixGame"):
        assert field in str(err)


def test_observation_with_logic_is_refused(tmp_path):
    path = variant(tmp_path, "return api\n", "api.observation = function(self, idx)\n  local n = 0\n"
                   "  for i = 1, idx do n = n + i end\n  return n\nend\nreturn api\n")
    err = error_of(path)
    assert err.line == line_of(path, "api.observation = function")
    assert "api:observation cannot be compiled" in str(err) and "observationSpec" in str(err)
    assert "contacts, beams, beamHits, transitions, matrixGame" in str(err)


@pytest.mark.parametrize("callback,alternative", [("onUpdate", "transitions"), ("onHit", "beamHits")])
def test_state_callbacks_are_refused(tmp_path, callback, alternative):
    path = variant(tmp_path, "sprout = {layer = 'items', sprite = 'Sprout', char = '.'}",
                   f"sprout = {{layer = 'items', sprite = 'Sprout', char = '.',\n"
                   f"                {callback} = function(grid, piece) end}}")
    err = error_of(path)
    assert err.line == line_of(path, f"{callback} = function")
    assert f"world.states.sprout.{callback} cannot be compiled" in str(err) and alternative in str(err)


def test_state_callbacks_method_is_refused(tmp_path):
    path = variant(tmp_path, "return api\n", "function api:stateCallbacks()\n  return {}\nend\nreturn api\n")
    err = error_of(path)
    assert err.line == line_of(path, "function api:stateCallbacks") and "contacts" in str(err)


# -- sandbox ---------------------------------------------------------------------------------------

def test_os_and_io_are_unavailable(tmp_path):
    err = error_of(variant(tmp_path, "self._episode = episode", "self._episode = os.time()"))
    assert "in api:start: os.time is not available" in str(err)
    path = variant(tmp_path, "  local s = self.settings\n", "  local s = self.settings\n  io.open('x')\n",
                   name="io.lua")
    err = error_of(path)
    assert err.line == line_of(path, "io.open") and "io.open is not available" in str(err)


def test_require_is_confined_to_the_level_folder_and_levels_dir(tmp_path):
    (tmp_path / "secret.lua").write_text("return {players = 1}\n")
    path = variant(tmp_path, "local api = {}", "local secret = require 'secret'\nlocal api = {}",
                   name="levels/level.lua")
    err = error_of(path)
    assert err.line == line_of(path, "require 'secret'") and "module not found" in str(err)
    assert compile_grid_level(path, levels_dir=tmp_path).name == "apple_walk"
    up = variant(tmp_path, "local api = {}", "local secret = require '..secret'\nlocal api = {}", name="levels/up.lua")
    assert "may not contain '..'" in str(error_of(up))


# -- malformed worlds --------------------------------------------------------------------------------

def test_ragged_map_row_is_located(tmp_path):
    path = variant(tmp_path, "W   AAA   W\nW  AA", "W   AAA  W\nW  AA")
    err = error_of(path)
    assert err.line == line_of(path, "W   AAA  W") and "row 3 has 10 characters" in str(err)


def test_map_character_missing_from_char_map(tmp_path):
    path = variant(tmp_path, "W  AA AA  W", "W  AA XA  W")
    err = error_of(path)
    assert err.line == line_of(path, "W  AA XA  W")
    assert "row 4, column 7: character 'X' is not in charMap" in str(err)


def test_unknown_state_in_a_contact_suggests(tmp_path):
    path = variant(tmp_path, "other = 'apple'", "other = 'appel'")
    err = error_of(path)
    assert err.line == line_of(path, "'appel'")
    assert "world.contacts[1].other: unknown state 'appel'. Did you mean 'apple'" in str(err)


def test_unknown_keys_suggest(tmp_path):
    err = error_of(variant(tmp_path, "blocksBeams = true", "blockBeams = true"))
    assert "world.states.wall: unknown key 'blockBeams'. Did you mean 'blocksBeams'" in str(err)
    path = variant(tmp_path, "layers = {'background'", "renderOrder = {'background'", name="r.lua")
    err = error_of(path)
    assert err.line == line_of(path, "renderOrder") and "Lab2D's renderOrder is layers here" in str(err)
    err = error_of(variant(tmp_path, "zap = {layer = 'overlay'", "zap = {layer = 'overlai'", name="l.lua"))
    assert "unknown layer 'overlai'. Did you mean 'overlay'" in str(err)


def test_sprite_art_and_palette_are_checked(tmp_path):
    path = variant(tmp_path, ".rrrrrr.\n.rrrrwr.", ".rrrrrr\n.rrrrwr.")
    err = error_of(path)
    assert err.line == line_of(path, ".rrrrwr.") - 1
    assert "world.sprites.Apple.art must be square: 8 rows, but row 4 has 7 characters" in str(err)
    path = variant(tmp_path, ".rrrrwr.", ".rrrrqr.", name="p.lua")
    err = error_of(path)
    assert err.line == line_of(path, ".rrrrqr.") and "'q' is not in the palette" in str(err)


def test_observation_and_action_specs_are_checked(tmp_path):
    path = variant(tmp_path, "{name = 'WORLD.TEXT', type = 'String'}", "{name = 'WORLD.STEPS', type = 'Int32s'}")
    err = error_of(path)
    assert err.line == line_of(path, "WORLD.STEPS") and "does not provide observation 'WORLD.STEPS'" in str(err)
    err = error_of(variant(tmp_path, "{name = 'WORLD.TEXT', type = 'String'}", "{name = '3.RGB'}", name="o.lua"))
    assert "the world has 2 player(s)" in str(err)
    path = variant(tmp_path, "'.turn', min = -1, max = 1", "'.turn', min = -1, max = 2", name="a.lua")
    err = error_of(path)
    assert err.line == line_of(path, "'.turn'") and "takes values -1..1" in str(err)
    err = error_of(variant(tmp_path, "'.fireZap', min", "'.fireZop', min", name="b.lua"))
    assert "no action '1.fireZop'" in str(err) and "Did you mean '1.fireZap'" in str(err)


def test_compiled_specs_list_observations_and_actions():
    compiled = compile_grid_script(EXAMPLE)
    assert [a["name"] for a in compiled.actions][:3] == ["1.move", "1.turn", "1.fireZap"]
    shapes = {o["name"]: o["shape"] for o in compiled.observations}
    assert shapes["WORLD.RGB"] == [56, 88, 3] and shapes["2.RGB"] == [40, 40, 3] and shapes["1.REWARD"] == []
    assert compiled.callbacks == ["init", "world", "observationSpec", "discreteActionSpec", "start"]


# -- properties ------------------------------------------------------------------------------------

PUSHBOX = {"spriteSize": 8, "episodeLengthFrames": 120, "gridShape": {"width": 10, "height": 10},
           "topology": "BOUNDED", "stepCost": 0.1, "numBoxes": 4, "roomSteps": 30}


def test_properties_read_write_list_round_trip():
    s = {**PUSHBOX, "gridShape": dict(PUSHBOX["gridShape"]), "regrowth": (0.0, 0.5)}
    assert props.list_property(s, "") == [("settings", PropertyAttribute.LISTABLE)]
    listed = dict(props.list_property(s, "settings"))
    assert listed["settings.gridShape"] == PropertyAttribute.LISTABLE
    assert listed["settings.numBoxes"] == PropertyAttribute.READABLE_WRITABLE == 3
    assert props.list_property(s, "settings.gridShape") == [
        ("settings.gridShape.width", PropertyAttribute.READABLE_WRITABLE),
        ("settings.gridShape.height", PropertyAttribute.READABLE_WRITABLE)]
    assert props.read_property(s, "settings.stepCost") == "0.1"
    for key, value, read in [("settings.numBoxes", " 6 ", "6"), ("settings.numBoxes", "0x10", "16"),
                             ("settings.numBoxes", "1e2", "100"), ("settings.stepCost", "0.25", "0.25"),
                             ("settings.topology", "TORUS", "TORUS"), ("settings.gridShape.width", "12", "12"),
                             ("settings.regrowth.2", "0.75", "0.75")]:
        props.write_property(s, key, value)
        assert props.read_property(s, key) == read
    assert s["numBoxes"] == 100 and isinstance(s["numBoxes"], int) and s["regrowth"] == (0.0, 0.75)
    assert props.list_property(s, "settings.regrowth")[0] == ("settings.regrowth.1", PropertyAttribute.READABLE_WRITABLE)
    flat = props.flatten_settings(s)
    assert flat["gridShape.width"] == "12" and flat["regrowth.2"] == "0.75"
    assert props.nest_settings(flat)["regrowth"] == [0, 0.75]


def test_properties_errors():
    s = dict(PUSHBOX, gridShape=dict(PUSHBOX["gridShape"]))
    with pytest.raises(KeyError, match="Did you mean 'settings.numBoxes'") as info:
        props.read_property(s, "settings.numBoxs")
    assert info.value.result == PropertyResult.NOT_FOUND
    for call in (lambda: props.read_property(s, "settings.gridShape"),
                 lambda: props.read_property(s, "settings"),
                 lambda: props.read_property(s, "settings.numBoxes.x"),
                 lambda: props.write_property(s, "settings.gridShape", "3")):
        with pytest.raises(ValueError, match="permission denied") as info:
            call()
        assert info.value.result == PropertyResult.PERMISSION_DENIED
    for key, value in [("settings.numBoxes", "abc"), ("settings.numBoxes", "5.5"), ("settings.spriteSize", "inf")]:
        with pytest.raises(ValueError, match="invalid argument") as info:
            props.write_property(s, key, value)
        assert info.value.result == PropertyResult.INVALID_ARGUMENT
    with pytest.raises(KeyError):
        props.list_property(s, "settings.numBoxes")
    with pytest.raises(KeyError):
        props.write_property(s, "settings.nope", "1")
    assert s == dict(PUSHBOX, gridShape=dict(PUSHBOX["gridShape"]))   # failed writes change nothing


def test_properties_match_dmlab2d_on_pushbox():
    dmlab2d = pytest.importorskip("dmlab2d")
    from dmlab2d import runfiles_helper

    env = dmlab2d.Lab2d(runfiles_helper.find(), {"levelName": "pushbox"})
    ours = dict(PUSHBOX, gridShape=dict(PUSHBOX["gridShape"]))
    for key in ("", "settings", "settings.gridShape"):
        assert sorted((k, int(a)) for k, a in env.list_property(key)) == \
            sorted((k, int(a)) for k, a in props.list_property(ours, key))
    for key, attribute in props.list_property(ours, "settings"):
        if attribute == PropertyAttribute.READABLE_WRITABLE:
            assert env.read_property(key) == props.read_property(ours, key)
    for key, value in [("settings.numBoxes", "0x10"), ("settings.stepCost", "1e2"), ("settings.topology", "TORUS")]:
        env.write_property(key, value)
        props.write_property(ours, key, value)
        assert env.read_property(key) == props.read_property(ours, key)
    for key in ("settings.nope", "nope"):
        with pytest.raises(KeyError):
            env.read_property(key)
        with pytest.raises(KeyError):
            props.read_property(ours, key)


def test_apply_settings_suggests_unknown_names():
    applied = props.apply_settings(PUSHBOX, {"gridShape": {"width": "7"}, "numBoxes": 2})
    assert applied["gridShape"]["width"] == 7 and applied["numBoxes"] == 2 and PUSHBOX["numBoxes"] == 4
    with pytest.raises(UnknownNameError, match="Did you mean 'gridShape.width'"):
        props.apply_settings(PUSHBOX, {"gridShape.widht": 3})


@pytest.mark.parametrize("old, new, where", [
    ("reward = s.appleReward", "reward = 1/0", "reward must be a finite number, got inf"),
    ("probability = s.regrowth", "probability = 0/0", "probability must be a finite number, got nan"),
    ("probability = s.regrowth", "probability = {0, 0/0}", "probability[2] must be a finite number, got nan"),
    ("radius = s.regrowthRadius", "radius = 1/0", "radius must be an integer, got inf"),
    ("cooldown = s.zapCooldown", "cooldown = -(0/0)", "cooldown must be an integer, got nan"),
])
def test_numbers_in_the_world_table_are_finite(tmp_path, old, new, where):
    """NaN and infinities written in a script (``0/0``, ``1/0``) are refused with file:line, like the same
    values given as settings."""
    path = variant(tmp_path, old, new)
    err = error_of(path)
    assert where in str(err) and str(err).startswith(f"{path}:{err.line}: ") and err.line > 0, str(err)
