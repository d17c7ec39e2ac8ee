"""A ``.map``'s curved patches as boxes (a lookat screen), a non-solid button over a pit as a kill zone, and a
texture the script updates during play drawn on the map's screen (``compile_lua.dmlab.screens``,
``compile_lua.device.live_textures``, ``jaxlab.render.first_person.screens``), checked against lupa running the
same calls (helpers from ``test_dmlab_map_files``)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from compile_lua.compiled import compile_in_process
from compile_lua.errors import LuaScriptError
from compile_lua.loading import load_script
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab.quake_map import parse_quake_map
from test_dmlab_map_files import box, checkout, convert, entity, room


def patch(texture, x, y0, y1, z0, z1, st_lo, st_hi):
    """A flat 3 x 3 patch in the plane x = ``x`` over y0..y1, z0..z1, its texture coordinates (s, t) running
    linearly from ``st_lo`` at (y0, z0) to ``st_hi`` at (y1, z1)."""
    rows = []
    for i in range(3):
        points = [f"( {x:g} {y0 + (y1 - y0) * i / 2:g} {z0 + (z1 - z0) * j / 2:g} "
                  f"{st_lo[0] + (st_hi[0] - st_lo[0]) * i / 2:g} {st_lo[1] + (st_hi[1] - st_lo[1]) * j / 2:g} )"
                  for j in range(3)]
        rows.append("( " + " ".join(points) + " )")
    return "{\npatchDef2\n{\n" + texture + "\n( 3 3 0 0 0 )\n(\n" + "\n".join(rows) + "\n)\n}\n}\n"


#: a screen 80 x 60 units in the plane x = 250 facing the spawn (50, 50), s = 0 on the viewer's left (y = 90)
#: and t = 0 at its top; a lookat zone of a patch one unit in front of it
SCREEN = patch("map/test_screen", 250, 10, 90, 20, 80, (1, 1), (0, 0))
GAZE = entity("trigger_lookat", None, [patch("common/caulk", 249, 10, 90, 20, 80, (1, 1), (0, 0))], id="7")

SCRIPT = """
    local tensor = require 'dmlab.system.tensor'
    local game = require 'dmlab.system.game'
    local NAME = 'textures/map/test_screen'
    local api = {}
    function api:nextMap() return 'screen' end
    function api:updateSpawnVars(v)
      if v.classname == 'info_player_start' then v.angle = '0' v.randomAngleRange = '0' end
      return v
    end
    function api:start(episode, seed)
      api._side = 0
      api._image = tensor.ByteTensor(4, 8, 4):fill(40)
      api._image:narrow(2, 1, 4):fill(90)
    end
    function api:loadTexture(name)
      if name == NAME then return api._image end
    end
    function api:lookat(id, lookedAt, position)
      if lookedAt then api._side = position[2] > 0.5 and 1 or 2 end
    end
    local function paint(r, g, b)
      api._image:select(3, 1):fill(r)
      api._image:select(3, 2):fill(g)
      api._image:select(3, 3):fill(b)
    end
    function api:modifyControl(actions)
      if api._side == 1 then paint(200, 0, 0) elseif api._side == 2 then paint(0, 0, 200) end
      game:updateTexture(NAME, api._image)
      api._side = 0
      return actions
    end
    return api
"""


def test_a_patch_is_kept_as_its_box_and_a_lookat_zone_of_patches_is_their_box():
    parsed = parse_quake_map(entity("worldspawn", brushes=[SCREEN]) + GAZE)
    (screen,) = parsed.entities[0].patches
    assert screen.texture == "map/test_screen" and screen.lo.tolist() == [250, 10, 20]
    assert screen.hi.tolist() == [250, 90, 80] and screen.st_lo.tolist() == [1, 1] and screen.st_hi.tolist() == [0, 0]
    converted = convert(room(walls=[SCREEN], extra=[GAZE]))
    (zone,) = converted.lookat_zones
    assert zone.id == 7 and zone.lo == (249.0, 10.0, 20.0) and zone.hi == (249.0, 90.0, 80.0)
    assert [s.texture for s in converted.surfaces] == ["map/test_screen"]


def test_a_ghost_button_under_the_platform_is_a_kill_zone_and_the_platform_over_the_void_converts():
    """A 64-unit platform over a sky box 1000 units deep, a non-solid button (DMLab's map/ghost) below it whose
    target is a target_kill: the button kills whoever falls through it, so the floor far below (with gaps at
    the sky box's corners) is never reached, and the map converts as heights with the spawn on the platform."""
    shell = [box((-500, -500, -1032), (500, 500, -1024), "map/sky"), box((-500, -508, -1024), (492, -500, 1024), "map/sky"),
             box((-500, 500, -1024), (492, 508, 1024), "map/sky"), box((-508, -492, -1024), (-500, 500, 1024), "map/sky"),
             box((500, -500, -1024), (508, 492, 1024), "map/sky"), box((-500, -500, 1024), (500, 500, 1032), "map/sky"),
             box((-32, -64, 64), (32, 0, 72), "test/floor")]
    text = (entity("worldspawn", brushes=shell) + entity("info_player_start", "0 -32 96", angle="90")
            + entity("func_button", None, [box((-256, -256, 40), (256, 256, 48), "map/ghost")], target="kill",
                     wait="-1", angle="-2") + entity("target_kill", "0 0 128", targetname="kill"))
    converted = convert(text)
    (zone,) = converted.hurt_zones
    assert zone.boxes == ((-256.0, -256.0, 40.0, 256.0, 256.0, 48.0),) and zone.trigger == (0, "kill")
    assert [v["classname"] for v in converted.spawn_vars] == ["info_player_start"]
    x, y = converted.level_xy(0, -32)
    floor_z = converted.parsed.floor_z
    row = floor_z.shape[0] - 1 - int(y // 50)
    assert floor_z[row, int(x // 50)] == 72.0 and floor_z.min() < -1000


def _lupa_textures(path, sides):
    """lupa's api._image (RGB) after start, then per frame modifyControl and the frame's lookat at ``sides``
    (1 left, 2 right, 0 none), as the kernel orders them."""
    loaded = load_script(path)
    sandbox, api = loaded.sandbox, loaded.returned
    sandbox.call_method(api, "start", 0, 0)
    images = [np.asarray(sandbox.to_python(api["_image"]))[..., :3].copy()]
    for side in sides:
        sandbox.call_method(api, "modifyControl", sandbox.table({}))
        images.append(np.asarray(sandbox.to_python(api["_image"]))[..., :3].copy())
        if side:
            sandbox.call_method(api, "lookat", 7, True, sandbox.table([0.0, 0.75 if side == 1 else 0.25, 0.5]), 1)
    return images


def test_the_screen_shows_the_texture_the_script_updates_as_lupa_computes_it(tmp_path):
    """At the start the screen shows loadTexture's image (its first columns, s < 1/2, on the viewer's left);
    the gaze turning left onto the screen's left half makes the next frame's modifyControl paint it red, then
    right, blue; the pixels beside the screen show the wall behind it. Each frame's screen equals lupa's
    image after the same calls."""
    path, game_scripts = checkout(tmp_path, maps={"screen": room(walls=[SCREEN], extra=[GAZE])}, script=SCRIPT)
    compiled = compile_in_process(path, levels_dir=game_scripts)
    assert compiled.meta["device"]["textures"] == ["textures/map/test_screen"]
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), width=64, height=48)
    left, right = jnp.zeros(7, jnp.int32).at[0].set(-30), jnp.zeros(7, jnp.int32).at[0].set(60)
    actions = jnp.stack([left, left, right, right])

    @jax.jit
    def run(key):
        state, ts = env.reset(key)

        def frame(state, action):
            state, ts = env.step(state, action)
            return state, (ts.observation["RGB_INTERLEAVED"], state.yaw)
        frames, yaws = jax.lax.scan(frame, state, actions)[1]
        return jnp.concatenate([ts.observation["RGB_INTERLEAVED"][None], frames]), yaws

    frames, yaws = jax.device_get(run(jax.random.PRNGKey(0)))
    sides = [1 if y > 0 else 2 for y in yaws]   # turned left: the gaze on the screen's left half
    assert sides == [1, 1, 2, 2]
    want = _lupa_textures(path, sides)
    for t, (frame, image) in enumerate(zip(frames, want)):
        row = frame[24]   # the eye's row: the middle of the screen, the image's rows 2 and 3
        colours = np.unique(image.reshape(-1, 3), axis=0)
        on = np.flatnonzero((row[:, None] == colours[None]).all(axis=2).any(axis=1))
        assert len(on) >= 8 and np.ptp(on) == len(on) - 1, f"frame {t}: the screen is not {colours.tolist()}"
        np.testing.assert_array_equal(row[on[0]], image[2, 0], err_msg=f"frame {t}: left edge")
        np.testing.assert_array_equal(row[on[-1]], image[2, -1], err_msg=f"frame {t}: right edge")
        assert (row[[on[0] - 1, on[-1] + 1]] != row[on[0]]).any(axis=1).all()   # the wall beside it
    assert [tuple(image[2, 0]) for image in want] == [(90, 90, 90)] * 2 + [(200, 0, 0)] * 2 + [(0, 0, 200)]
    assert tuple(want[0][2, -1]) == (40, 40, 40)


@pytest.mark.parametrize("call, message", [
    ("game:updateTexture(NAME, tensor.ByteTensor(4, 8, 3))", r"a Byte tensor of shape \[4, 8, 3\].*H x W x 4"),
    ("game:updateTexture(NAME, tensor.ByteTensor(2, 2, 4))", r"shape \[4, 8, 4\]; the live texture 'textures/map/test_screen' is \[2, 2, 4\]"),
])
def test_a_texture_update_of_another_shape_is_refused(tmp_path, call, message):
    script = SCRIPT.replace("game:updateTexture(NAME, api._image)", call)
    path, game_scripts = checkout(tmp_path, maps={"screen": room(walls=[SCREEN], extra=[GAZE])}, script=script)
    with pytest.raises(LuaScriptError, match=message):
        compile_in_process(path, levels_dir=game_scripts)
