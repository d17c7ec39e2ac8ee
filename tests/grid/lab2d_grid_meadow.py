"""The meadow level (``lab2d_grid_levels/meadow.lua``) written against jaxlab's Lab2D grid kernel: the
same torus, updaters (one with a probability and a start frame), ``onAdd``/``onRemove`` and removals
as the Lua, for the comparisons with dmlab2d."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.kernels.lab2d_grid import pieces, queries, update
from jaxlab.kernels.lab2d_grid.state import (KEEP_ORIGINAL, PUSH, ROTATE, SET_ORIENTATION, SET_STATE, TELEPORT,
                                             GridCallbacks, GridRules, empty_grid, piece_at)
from jaxlab.levels.lab2d.grid_world import world_from_config
from lab2d_grid_levels_layout import layout_of

WORLD = world_from_config({
    "renderOrder": ["ground", "pieces"],
    "updateOrder": ["walk", "grow"],
    "states": {
        "walker": {"layer": "pieces", "sprite": "Walker", "groups": ["walkers"], "contact": "walker"},
        "rock": {"layer": "pieces", "sprite": "Rock"},
        "grass": {"layer": "ground", "sprite": "Grass", "groups": ["grass"]},
        "flower": {"layer": "ground", "sprite": "Flower"},
    },
})
LAYOUT = layout_of("meadow.lua")
WALKERS = (((0, 0), 1), ((4, 2), 3), ((2, 4), 0), ((5, 4), 2))
STEPS = 30
S = {name: WORLD.state(name) for name in WORLD.state_names}


def _add(g, **amounts):
    return g.replace(user={**g.user, **{k: g.user[k] + v for k, v in amounts.items()}})


def _eaten(g, flower, walker):
    g = update.remove(RULES, g, flower)
    g, _ = pieces.create(RULES, g, S["grass"], g.piece_pos[flower], g.piece_orient[flower])
    return g


CALLBACKS = GridCallbacks(
    on_update={(S["walker"], WORLD.update("walk")): lambda g, p, f: update.enqueue(g, PUSH, p, 0, 1),
               (S["grass"], WORLD.update("grow")): lambda g, p, f: update.enqueue(g, SET_STATE, p, S["flower"])},
    on_blocked={S["walker"]: lambda g, p, b: _add(update.enqueue(g, ROTATE, p, 1), reward=-0.5)},
    on_add={S["flower"]: lambda g, p: _add(g, flowers=1)},
    on_remove={S["flower"]: lambda g, p: _add(g, flowers=-1, reward=1.0)},
    on_enter={(S["flower"], WORLD.contact("walker")): _eaten},
)
RULES = GridRules(WORLD, width=8, height=6, torus=True, max_pieces=64, max_queue=64, callbacks=CALLBACKS)


def start(key, walkers, growth):
    """The grid after the Lua's ``start``, but for its closing ``update``, with ``walkers`` (int32[], 1 to
    4) walkers and flowering probability ``growth`` (float32[])."""
    user = {"flowers": jnp.int32(0), "reward": jnp.float32(0.0), "walkers": jnp.full((4,), -1, jnp.int32)}
    g = empty_grid(RULES, key, user=user)
    g, made = pieces.create_layout(RULES, g, {"G": S["grass"], "R": S["rock"]}, LAYOUT)
    g = update.remove(RULES, g, made[9])
    places = jnp.asarray([place for place, _ in WALKERS], jnp.int32)
    facings = jnp.asarray([facing for _, facing in WALKERS], jnp.int32)

    def one(k, g):
        g, piece = pieces.create(RULES, g, S["walker"], places[k], facings[k], active=k < walkers)
        return g.replace(user={**g.user, "walkers": g.user["walkers"].at[k].set(piece)})

    g = jax.lax.fori_loop(0, len(WALKERS), one, g)
    g = update.set_updater(RULES, g, WORLD.update("walk"), WORLD.group("walkers"))
    return update.set_updater(RULES, g, WORLD.update("grow"), WORLD.group("grass"), probability=growth, start_frame=2)


def observe(g):
    """TEXT uint8[6, 9], FLOWERS int32[1], WALKERS int32[4, 3] (x, y, facing; -1 rows past the walkers),
    AREA int32[4] (ground pieces in the first walker's disc of radius 2 and in the rectangle (1, 1)-(4, 3),
    grass pieces shuffled with a count of at most 5, whether a piece stands at (0, 5))."""
    w = g.user["walkers"]
    rows = jnp.concatenate([g.piece_pos[w], g.piece_orient[w][:, None]], axis=1)
    ground = WORLD.layer("ground")
    _, _, disc = queries.query_disc(RULES, g, ground, g.piece_pos[w[0]], 2)
    _, _, rectangle = queries.query_rectangle(RULES, g, ground, (1, 1), (4, 3), 12)
    _, _, shuffled = queries.group_shuffled(RULES, g, WORLD.group("grass"), 5)
    occupied = piece_at(RULES, g, jnp.asarray([0, 5]), WORLD.layer("pieces")) >= 0
    return {"WORLD.TEXT": queries.to_text(RULES, g), "FLOWERS": g.user["flowers"][None],
            "WALKERS": jnp.where((w >= 0)[:, None], rows, -1),
            "AREA": jnp.stack([disc, rectangle, shuffled, occupied.astype(jnp.int32)])}


def play(key, walkers, growth, steps: int = STEPS - 1):
    """One episode of ``steps`` advances: observations stacked over steps + 1, rewards float32[steps], errors."""
    def one(g, frame):
        g = g.replace(user={**g.user, "reward": jnp.float32(0.0)})
        first = g.user["walkers"][0]
        turn = (frame > 0) & (frame % 7 == 0)      # the Lua's advance(steps) on every seventh step
        g = update.enqueue(g, TELEPORT, first, 0, 5, KEEP_ORIGINAL, active=turn)
        g = update.enqueue(g, SET_ORIENTATION, first, 2, active=turn)
        g = update.update(RULES, g)
        return g, (observe(g), g.user["reward"])

    # the start's closing update and the advances are the same update (one copy of it to compile)
    g, (obs, rewards) = jax.lax.scan(one, start(key, walkers, growth), jnp.arange(steps + 1))
    return obs, rewards[1:], g.error
