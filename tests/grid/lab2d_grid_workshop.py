"""The workshop level (``lab2d_grid_levels/workshop.lua``) written against jaxlab's Lab2D grid kernel:
the same world, layout, callbacks and steps as the Lua, so that the two can be played side by side
(dmlab2d runs the Lua). Actions: int32[5] MOVE, TURN, FORWARD, ZAP, PLANT, as the Lua's spec."""
from __future__ import annotations

import jax
import jax.numpy as jnp

import numpy as np

from jaxlab.kernels.lab2d_grid import pieces, queries, update
from jaxlab.kernels.lab2d_grid.views import LayerView, observe as view_of
from jaxlab.render.grid import tile_scene
from jaxlab.kernels.lab2d_grid.state import (CONNECT, DISCONNECT, HIT_BEAM, KEEP_ORIGINAL, PUSH, ROTATE, SET_STATE,
                                             TELEPORT_TO_GROUP, GridCallbacks, GridRules, direction_of, empty_grid)
from jaxlab.levels.lab2d.grid_world import world_from_config
from lab2d_grid_levels_layout import layout_of

WORLD = world_from_config({
    "renderOrder": ["logic", "pieces", "beams"],
    "updateOrder": ["move", {"name": "grow", "func": "growUp"}],
    "hits": {"zap": {"layer": "beams", "sprite": "=Zap"}},
    "states": {
        "wall": {"layer": "pieces", "sprite": "*Wall"},
        "spawn": {"layer": "invisible", "groups": ["spawns"]},
        "player": {"layer": "pieces", "sprite": "Player", "groups": ["movers"], "contact": "avatar"},
        "box": {"layer": "pieces", "sprite": "Box", "contact": "box"},
        "goal": {"layer": "logic", "sprite": "XGoal", "groups": ["emptyGoals"], "contact": "goal"},
        "boxGoal": {"layer": "logic", "sprite": "&BoxGoal", "contact": "goal"},
        "sapling": {"layer": "pieces", "sprite": "sSapling", "groups": ["growers"]},
        "tree": {"layer": "pieces", "sprite": "tTree"},
        "trap": {"layer": "logic", "sprite": "~Trap", "contact": "trap"},
        "sprung": {"layer": "pieces", "sprite": "#Sprung"},
        "teleporter": {"layer": "logic", "sprite": "TTeleporter", "contact": "teleporter"},
        "exit": {"layer": "logic", "sprite": "EExit", "groups": ["exits"]},
    },
    "outOfBoundsSprite": "OutOfBounds",
    "outOfViewSprite": "OutOfView",
})
LAYOUT = layout_of("workshop.lua")
STATE_MAP = {"*": "wall", "P": "spawn", "B": "box", "X": "goal", "s": "sapling", "~": "trap", "T": "teleporter",
             "E": "exit"}
STEPS = 40
WORLD_VIEW = LayerView(left=0, right=8, forward=0, backward=6)
PLAYER_VIEW = LayerView(left=2, right=1, forward=3, backward=1)
CENTERED_VIEW = LayerView(left=1, right=2, forward=2, backward=0, centered=True)


def _atlas():
    """The Lua's tile set: (rgb uint8[N, 2, 2, 3], alpha uint8[N, 2, 2]), a colour per sprite id with its
    top-left pixel white; beams half see-through, goals a little."""
    names = [""] + [f"{n}.{o}" for n in WORLD.sprite_names for o in "NESW"]
    rgb = np.zeros((len(names), 2, 2, 3), np.uint8)
    alpha = np.zeros((len(names), 2, 2), np.uint8)
    for i, name in enumerate(names[1:], start=1):
        rgb[i] = [(37 * i) % 256, (91 * i + 11) % 256, (53 * i + 7) % 256]
        rgb[i, 0, 0] = 255
        alpha[i] = {"=": 128, "X": 200}.get(name[0], 255)
    return rgb, alpha


ATLAS = _atlas()
S = {name: WORLD.state(name) for name in WORLD.state_names}
PIECES = WORLD.layer("pieces")
ZAP = WORLD.hit("zap")


def _move(g, piece, frames):
    u = g.user
    act = u["move"] != 0
    direction = u["move"] - 1
    hit, block, _ = queries.ray_cast_direction(RULES, g, PIECES, g.piece_pos[piece], direction_of(direction), 1)
    push = act & hit & (block >= 0) & (g.piece_state[jnp.maximum(block, 0)] == S["box"])
    g = update.enqueue(g, CONNECT, piece, block, active=push)
    g = update.enqueue(g, PUSH, piece, direction, 0, active=act)
    g = update.enqueue(g, DISCONNECT, piece, active=push)
    g = update.enqueue(g, ROTATE, piece, 3, active=u["turn"] == 1)
    g = update.enqueue(g, ROTATE, piece, 1, active=u["turn"] == 2)
    g = update.enqueue(g, PUSH, piece, 0, 1, active=u["forward"] == 1)
    g = update.enqueue(g, HIT_BEAM, piece, ZAP, 3, 1, active=u["zap"] == 1)
    ahead = g.piece_pos[piece] + direction_of(g.piece_orient[piece])
    g, _ = pieces.create(RULES, g, S["sapling"], ahead, 0, active=u["plant"] == 1)
    return g


def _reward(g, amount):
    return g.replace(user={**g.user, "reward": g.user["reward"] + amount})


def _swap_goal(g, goal, before, after, amount):
    """A box's contact with a goal: if the goal is ``before``, it becomes ``after`` and pays ``amount``."""
    now = g.piece_state[goal] == S[before]
    g = update.enqueue(g, SET_STATE, goal, S[after], active=now)
    return _reward(g, jnp.where(now, amount, 0.0))


def _zap_tree(g, tree, hitter):
    return _reward(update.remove(RULES, g, tree), 1.0), True


CALLBACKS = GridCallbacks(
    on_blocked={S["player"]: lambda g, piece, blocker: _reward(g, -0.25)},
    on_update={(S["player"], WORLD.update("move")): _move,
               (S["sapling"], WORLD.update("grow")): lambda g, p, f: update.enqueue(g, SET_STATE, p, S["tree"])},
    on_enter={
        (S["player"], WORLD.contact("teleporter")):
            lambda g, p, o: update.enqueue(g, TELEPORT_TO_GROUP, p, -1, WORLD.group("exits"), KEEP_ORIGINAL),
        (S["box"], WORLD.contact("goal")): lambda g, box, goal: _swap_goal(g, goal, "goal", "boxGoal", 2.0),
        (S["trap"], WORLD.contact("avatar")): lambda g, trap, p: update.enqueue(g, SET_STATE, trap, S["sprung"]),
    },
    on_leave={(S["box"], WORLD.contact("goal")): lambda g, box, goal: _swap_goal(g, goal, "boxGoal", "goal", -2.0)},
    on_hit={(S["wall"], ZAP): True,
            (S["sapling"], ZAP): lambda g, p, h: (update.enqueue(g, SET_STATE, p, S["sapling"]), False),
            (S["tree"], ZAP): _zap_tree},
)
RULES = GridRules(WORLD, width=9, height=7, max_pieces=64, max_queue=64, callbacks=CALLBACKS)
_NO_ACTION = {"move": jnp.int32(0), "turn": jnp.int32(0), "forward": jnp.int32(0), "zap": jnp.int32(0),
              "plant": jnp.int32(0), "reward": jnp.float32(0.0), "player": jnp.int32(-1)}


def start(key):
    """The grid after the Lua's ``start``, but for its closing ``update`` (a step with no action)."""
    g = empty_grid(RULES, key, user=dict(_NO_ACTION))
    g, _ = pieces.create_layout(RULES, g, {c: S[name] for c, name in STATE_MAP.items()}, LAYOUT)
    g, spawn = queries.group_random(RULES, g, WORLD.group("spawns"))
    g, player = pieces.create(RULES, g, S["player"], g.piece_pos[spawn], g.piece_orient[spawn])
    g = g.replace(user={**g.user, "player": player})
    g = update.set_updater(RULES, g, WORLD.update("move"), WORLD.group("movers"))
    return update.set_updater(RULES, g, WORLD.update("grow"), WORLD.group("growers"), start_frame=3)


def step(g, actions):
    """``discreteActions`` then ``advance``: (g, reward float32[])."""
    names = ("move", "turn", "forward", "zap", "plant")
    g = g.replace(user={**g.user, **{n: actions[i] for i, n in enumerate(names)}, "reward": jnp.float32(0.0)})
    g = update.update(RULES, g)
    return g, g.user["reward"]


def observe(g):
    """The Lua's observations: text uint8[7, 10], PLAYER int32[3], NEAR int32[1], RAY int32[3], the layer
    views WORLD.LAYER int32[7, 9, 3], PLAYER.LAYER int32[5, 4, 3], CENTERED.LAYER int32[5, 5, 3] and the
    paintings WORLD.RGB uint8[14, 18, 3], PLAYER.RGB uint8[10, 8, 3]."""
    player = g.user["player"]
    pos, orient = g.piece_pos[player], g.piece_orient[player]
    _, _, near = queries.query_diamond(RULES, g, PIECES, pos, 2, 2)
    hit, _, offset = queries.ray_cast_direction(RULES, g, PIECES, pos, 3 * direction_of(orient), 3)
    world = view_of(RULES, WORLD_VIEW, g, jnp.zeros(2, jnp.int32), jnp.int32(0))
    ahead = view_of(RULES, PLAYER_VIEW, g, pos, orient)
    rgb, alpha = (jnp.asarray(a) for a in ATLAS)
    return {"WORLD.TEXT": queries.to_text(RULES, g), "PLAYER": jnp.stack([pos[0], pos[1], orient]),
            "NEAR": near[None], "RAY": jnp.stack([hit.astype(jnp.int32), offset[0], offset[1]]),
            "WORLD.LAYER": world, "WORLD.RGB": tile_scene.render(world, rgb, alpha),
            "PLAYER.LAYER": ahead, "PLAYER.RGB": tile_scene.render(ahead, rgb, alpha),
            "CENTERED.LAYER": view_of(RULES, CENTERED_VIEW, g, pos, jnp.int32(0), player_facing=orient)}


def play(key, actions):
    """One episode: observations after the start and after each of the T steps (stacked over T + 1),
    rewards float32[T] and the grid's error bits."""
    def one(g, a):
        g, r = step(g, a)
        return g, (observe(g), r)

    # the start's closing update is a step with no action: one copy of the update to compile
    actions = jnp.concatenate([jnp.zeros_like(actions[:1]), actions])
    g, (obs, rewards) = jax.lax.scan(one, start(key), actions)
    return obs, rewards[1:], g.error
