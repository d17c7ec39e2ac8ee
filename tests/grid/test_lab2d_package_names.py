"""``lab2d/<name>``: dmlab2d's shipped levels by name, compiled from the installed package; the dmlab2d names
that jaxlab's own grid games once had are refused with both ways forward."""
from __future__ import annotations

import pytest

import jaxlab
from jaxlab.errors import UnknownNameError
from jaxlab.registry import dmlab2d_package
from grid.lab2d_reference import action_spec, open_level


def test_lab2d_pushbox_is_the_installed_package_s_level():
    env = jaxlab.make("lab2d/pushbox")
    levels = dmlab2d_package.game_scripts() / "levels"
    lab = open_level(levels, "pushbox")
    assert list(env.observation_spec()) == list(lab.observation_names())
    for name in ("WORLD.RGB", "WORLD.LAYER"):
        assert env.observation_spec()[name].shape == tuple(lab.observation_spec(name)["shape"]), name
    theirs = action_spec(levels, "pushbox")
    assert {name: (int(spec.minimum), int(spec.maximum)) for name, spec in env.action_spec().items()} == \
        {name: (low, high) for name, (_, low, high) in theirs.items()}


def test_lab2d_names_list_what_the_package_ships():
    shipped = dmlab2d_package.shipped_levels(dmlab2d_package.game_scripts())
    assert {"pushbox", "chase_eat", "commons_harvest", "clean_up", "running_with_scissors"} <= set(shipped)
    assert "examples/level_api" in shipped
    with pytest.raises(UnknownNameError, match=r"'commons_harvst'\. Did you mean 'commons_harvest'"):
        jaxlab.make("lab2d/commons_harvst")


def test_running_with_scissors_compiles_with_dmlab2d_s_specs_and_plays_batched():
    # its avatars keep their actions in a record reached through a local, their items in a tensor inside it
    env = jaxlab.make("lab2d/running_with_scissors")
    levels = dmlab2d_package.game_scripts() / "levels"
    lab = open_level(levels, "running_with_scissors")
    assert list(env.observation_spec()) == list(lab.observation_names())
    for name in ("WORLD.RGB", "1.RGB", "1.INVENTORY", "1.LAYER"):
        assert env.observation_spec()[name].shape == tuple(lab.observation_spec(name)["shape"]), name
    theirs = action_spec(levels, "running_with_scissors")
    assert {name: (int(spec.minimum), int(spec.maximum)) for name, spec in env.action_spec().items()} == \
        {name: (low, high) for name, (_, low, high) in theirs.items()}


def test_a_shipped_script_that_does_not_compile_is_refused_at_its_line():
    from compile_lua.errors import LuaScriptError
    with pytest.raises(LuaScriptError, match=r"levels/examples/level_api\.lua:\d+: .*system\.events"):
        jaxlab.make("lab2d/examples/level_api")


@pytest.mark.parametrize("dmlab2d_name, ours", [("chase_eat", "jaxlab_predator_prey"),
                                                ("commons_harvest", "jaxlab_commons_harvest"),
                                                ("clean_up", "jaxlab_clean_up"),
                                                ("running_with_scissors", "jaxlab_running_with_scissors")])
def test_dmlab2d_names_do_not_make_jaxlab_s_own_games(dmlab2d_name, ours):
    with pytest.raises(UnknownNameError) as refused:
        jaxlab.make(dmlab2d_name)
    assert f"'lab2d/{dmlab2d_name}'" in str(refused.value) and f"'{ours}'" in str(refused.value)
    assert ours in jaxlab.levels.names("lab2d") and dmlab2d_name not in jaxlab.levels.names("lab2d")


def test_lab2d_names_without_dmlab2d_say_how_to_get_it(monkeypatch):
    monkeypatch.setattr(dmlab2d_package.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModuleNotFoundError, match="pip install dmlab2d"):
        jaxlab.make("lab2d/pushbox")


def test_the_lab2d_host_runs_dmlab2d_s_level_of_a_name_jaxlab_has_not():
    # dmlab2d, given no levelDirectory, runs its built-in level of that name: so does jaxlab's Lab2d host
    from jaxlab.grid import Lab2d
    from jaxlab.hosts.lab2d_raw import RawLab2d

    host = Lab2d("chase_eat", ["WORLD.TEXT"])
    assert isinstance(host, RawLab2d) and list(host.observation_spec()) == ["WORLD.TEXT"]
    assert set(host.action_spec()) == {"MOVE"}
    assert not isinstance(Lab2d("pushbox", ["WORLD.TEXT"]), RawLab2d)   # jaxlab's own pushbox, dmlab2d's rules


def test_a_shipped_level_s_properties_are_refused_at_the_line_that_does_not_compile():
    # dmlab2d's shipped levels list their settings as properties (common.properties); that Lua (type(), string
    # methods over the key) does not compile yet: reading one is refused at its line, not answered "unknown"
    import jax
    from compile_lua.errors import LuaScriptError
    env = jaxlab.make("lab2d/pushbox")
    state, _ = env.reset(jax.random.PRNGKey(0))
    with pytest.raises(LuaScriptError, match=r"common/properties\.lua:\d+: .*cannot run on the device"):
        env.read_property(state, "settings")
