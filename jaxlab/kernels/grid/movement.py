"""Moves, pushes, contacts and spawning: the per-player part of a grid frame.

Players act one after another in a random order each frame (as Lab2D's
updater does), so two players never end in one cell. A move into a free cell
of the avatar layer succeeds; into a pushable piece it pushes the piece when
the cell beyond is free; into another avatar it catches it when a Contact
says so; otherwise nothing moves. Contacts fire for every piece that leaves
or enters a cell (the avatar, and a pushed piece).
"""
from __future__ import annotations


import jax
import jax.numpy as jnp

from jaxlab.levels.lab2d.compiled import KEEP, CompiledGrid, locate
from jaxlab.levels.lab2d.spec import DIRECTIONS

_DIRS = jnp.asarray(DIRECTIONS, jnp.int32)


def _contact(grid, cell, mover, becomes, reward, active):
    """Apply ``mover``'s contact tables at ``cell`` (every layer) when
    ``active``: returns (grid, reward float32[], states int32[L] before)."""
    col = grid[:, cell[0], cell[1]]
    new = becomes[mover, col]
    col_after = jnp.where(active & (new != KEEP), new, col)
    grid = grid.at[:, cell[0], cell[1]].set(col_after)
    return grid, jnp.where(active, reward[mover, col].sum(), 0.0), col


def _collect(world: CompiledGrid, mover, col, active):
    """int32[K]: items a mover gathers entering a cell holding ``col`` (K > 0)."""
    items = jnp.asarray(world.enter_collect)[mover, col]
    got = jax.nn.one_hot(items, len(world.spec.items), dtype=jnp.int32).sum(0)
    return jnp.where(active, got, 0)


def move_players(world: CompiledGrid, grid, pos, orient, respawn, inventory, move: jnp.ndarray,
                 turn: jnp.ndarray, active: jnp.ndarray, key: jax.Array):
    """Turn and move every active player once, in a random order.

    grid, pos, orient, respawn, inventory: as in GridState; move int32[P]
    (0 none, 1..4), turn int32[P] (-1, 0, 1); active bool[P] players that may
    act. Returns (grid, pos, orientation, respawn, inventory, reward
    float32[P]) after all moves and contacts.
    """
    P = world.num_players
    la = world.avatar_layer
    tables = {name: jnp.asarray(getattr(world, name)) for name in (
        "enter_becomes", "enter_reward", "leave_becomes", "leave_reward", "catch_reward", "catch_respawn",
        "pushable", "is_avatar", "player_state")}
    order = jax.random.permutation(key, P) if P > 1 else jnp.zeros(1, jnp.int32)

    def one(i, carry):
        grid, pos, orient, respawn, inventory, reward = carry
        p = order[i]
        me = tables["player_state"][p]
        act = active[p] & (respawn[p] == 0)
        o = jnp.where(act, (orient[p] + turn[p]) % 4, orient[p])
        if world.spec.movement == "relative":
            d = (o + move[p] - 1) % 4
        else:
            d = jnp.maximum(move[p] - 1, 0)
        delta = _DIRS[d]
        here = pos[p]
        tgt, in1 = locate(world, here + delta)
        beyond, in2 = locate(world, tgt + delta)
        occ = grid[la, tgt[0], tgt[1]]
        free = in1 & (occ == 0)
        push = in1 & in2 & tables["pushable"][occ] & (grid[la, beyond[0], beyond[1]] == 0)
        caught = (respawn == 0) & jnp.all(pos == tgt, axis=-1) & (jnp.arange(P) != p)
        catch = in1 & tables["is_avatar"][occ] & (tables["catch_respawn"][me, occ] > 0) & caught.any()
        moved = act & (move[p] > 0) & (free | push | catch)

        # the pushed piece leaves tgt and enters beyond
        pushing = moved & push
        grid, r1, _ = _contact(grid, tgt, occ, tables["leave_becomes"], tables["leave_reward"], pushing)
        grid, r2, _ = _contact(grid, beyond, occ, tables["enter_becomes"], tables["enter_reward"], pushing)
        grid = grid.at[la, beyond[0], beyond[1]].set(jnp.where(pushing, occ, grid[la, beyond[0], beyond[1]]))
        # a caught player leaves the grid
        catching = moved & catch
        respawn = jnp.where(catching & caught, tables["catch_respawn"][me, occ], respawn)
        reward = reward + jnp.where(catching & caught, tables["catch_reward"][me, occ], 0.0)
        # the avatar leaves here and enters tgt
        grid = grid.at[la, here[0], here[1]].set(jnp.where(moved, 0, grid[la, here[0], here[1]]))
        grid, r3, _ = _contact(grid, here, me, tables["leave_becomes"], tables["leave_reward"], moved)
        grid, r4, col = _contact(grid, tgt, me, tables["enter_becomes"], tables["enter_reward"], moved)
        grid = grid.at[la, tgt[0], tgt[1]].set(jnp.where(moved, me, grid[la, tgt[0], tgt[1]]))
        if world.spec.items:
            inventory = inventory.at[p].add(_collect(world, me, col, moved))
        reward = reward.at[p].add(r1 + r2 + r3 + r4)
        pos = pos.at[p].set(jnp.where(moved, tgt, here))
        orient = orient.at[p].set(o)
        return grid, pos, orient, respawn, inventory, reward

    carry = (grid, pos, orient, respawn, inventory, jnp.zeros(P, jnp.float32))
    return jax.lax.fori_loop(0, P, one, carry)


def _rank(cells: jnp.ndarray, salt: jnp.ndarray) -> jnp.ndarray:
    """uint32 pseudo-random ranks of ``cells`` (uint32[N]) under ``salt``: an
    integer hash (a bijection of uint32, so distinct cells never tie)."""
    x = cells * jnp.uint32(0x9E3779B1) + salt
    x = (x ^ (x >> 16)) * jnp.uint32(0x85EBCA6B)
    x = (x ^ (x >> 13)) * jnp.uint32(0xC2B2AE35)
    return x ^ (x >> 16)


def spawn_players(world: CompiledGrid, grid, pos, orient, due: jnp.ndarray, key: jax.Array):
    """Place every player with ``due`` (bool[P]) on a random free cell of its
    spawn state, facing north. A player with no free spawn cell stays off
    the grid. Returns (grid, pos, orientation, placed bool[P])."""
    P, la = world.num_players, world.avatar_layer
    spawn = jnp.asarray(world.player_spawn)
    spawn_layer = jnp.asarray(world.state_layer)[spawn]
    player_state = jnp.asarray(world.player_state)
    salts = jax.random.bits(key, (P,), jnp.uint32)
    cells = jnp.arange(world.height * world.width, dtype=jnp.uint32)

    def one(p, carry):
        grid, pos, orient, placed = carry
        ok = ((grid[spawn_layer[p]] == spawn[p]) & (grid[la] == 0)).reshape(-1)
        # the free spawn cell ranked first by a salted integer hash: a random pick
        # that costs a few integer ops per cell (no per-cell random numbers); in
        # the 2^-32 case of a lone free cell ranked 0 the player waits a frame
        flat = jnp.argmax(jnp.where(ok, _rank(cells, salts[p]), 0))
        cell = jnp.stack([flat // world.width, flat % world.width]).astype(jnp.int32)
        put = due[p] & ok[flat]
        # selects rather than scatters: cheaper under vmap
        here = (jnp.arange(ok.size) == flat).reshape(grid.shape[1:]) & put
        grid = grid.at[la].set(jnp.where(here, player_state[p], grid[la]))
        me = (jnp.arange(P) == p) & put
        pos = jnp.where(me[:, None], cell, pos)
        orient = jnp.where(me, 0, orient)
        return grid, pos, orient, placed | me

    return jax.lax.fori_loop(0, P, one, (grid, pos, orient, jnp.zeros(P, bool)))
