"""One frame of the first-person world, and the start of an episode."""
from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp

from jaxlab.env import select_tree, where_rows
from jaxlab.kernels.first_person.arena import arena_frame, has_bots, start_arena
from jaxlab.kernels.first_person.doors import door_zone, update_doors
from jaxlab.levels.dmlab import actions as A, units as C
from jaxlab.levels.dmlab.heights import has_heights
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.procedural.rng import key_words
from jaxlab.kernels.first_person.mechanics import (count_pickups, hold_key, platform, takeable_now, teleport,
                                                   throw_switch, use_key)
from jaxlab.kernels.first_person.movement import accelerate, jump, look, move_and_collide, wish_direction
from jaxlab.kernels.first_person.pickups import collect, pickup_positions, start_wait, touching
from jaxlab.kernels.first_person.script import (ScriptHooks, level_walls, run_pickups, script_controls, script_doors,
                                                script_inputs)
from jaxlab.kernels.first_person.state import WorldState
from jaxlab.kernels.first_person.terrain import ground, move_over_heights
from jaxlab.kernels.first_person.volumes import has_hurt_zones, has_jump_pads, hurt, push


def _masked_choice(key, mask) -> jnp.ndarray:
    """int32[]: a uniformly random index among the True entries of ``mask``."""
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)


def spawn(level: Level, goal_choice, key):
    """A random allowed spawn point for ``goal_choice`` and its yaw: the point's ``spawn_yaw`` turned by
    a uniform amount within half its ``spawn_yaw_range`` either way, or any yaw where ``spawn_yaw`` is NaN
    (pos float32[2] units, yaw float32[] degrees)."""
    k_pos, k_yaw = jax.random.split(key)
    index = _masked_choice(k_pos, level.spawn_allowed[goal_choice])
    yaw = jax.random.uniform(k_yaw, (), jnp.float32, -180.0, 180.0)
    fixed = level.spawn_yaw[index] + yaw / 360.0 * level.spawn_yaw_range[index]
    return level.spawn_pos[index], jnp.where(jnp.isnan(fixed), yaw, fixed)


def _respawn(level: Level, goal_choice, key):
    """``spawn`` and the ground height there: (pos float32[2], yaw float32[], z float32[] units)."""
    pos, yaw = spawn(level, goal_choice, key)
    return pos, yaw, ground(level, pos) if has_heights(level) else jnp.float32(0.0)


def _no_respawn(level: Level, goal_choice, key):
    return jnp.zeros((2,), jnp.float32), jnp.float32(0.0), jnp.float32(0.0)


def new_episode(level: Level, level_index, key, carry_level: bool = False,
                script: Optional[ScriptHooks] = None, learners: int = 1) -> WorldState:
    """The state at the start of an episode of ``level``: a random goal choice,
    the player at a random allowed spawn, every pickup present, no key held.
    ``carry_level`` (static): keep ``level`` in the state (``episode_level``);
    ``script`` (static): the level script's compiled callbacks, whose start state rides in ``script``.
    A level with bots (``arena.has_bots``) starts its other players too (``arena``; ``learners`` (static): how
    many players, the agent first, learning agents play)."""
    key, k_goal, k_spawn = jax.random.split(key, 3)
    goal_choice = _masked_choice(k_goal, level.goal_choice_valid)
    pos, yaw = spawn(level, goal_choice, k_spawn)
    zero = jnp.float32(0.0)
    return WorldState(
        key=key, level_index=jnp.asarray(level_index, jnp.int32), goal_choice=goal_choice,
        pos=pos, z=ground(level, pos) if has_heights(level) else zero, vel=jnp.zeros(2, jnp.float32), vz=zero,
        yaw=yaw, pitch=zero,
        look_rate=jnp.zeros(2, jnp.float32), crouch=jnp.bool_(False),
        door_open=jnp.zeros(level.door_valid.shape, jnp.float32),
        pickup_wait=start_wait(level),
        frames=jnp.int32(0), episode_return=zero, done=jnp.bool_(False),
        held_key=jnp.int32(0), door_lock=jnp.asarray(level.door_lock, jnp.int32),
        platform_frames=jnp.int32(0), switched=jnp.bool_(False), pickups_taken=jnp.int32(0),
        finished=jnp.bool_(False), episode_level=level if carry_level else None,
        script=None if script is None else script.start(jnp.asarray(level_index, jnp.int32),
                                                        jax.random.fold_in(key, 1)),
        arena=start_arena(level, pos, jax.random.fold_in(key, 2), learners) if has_bots(level) else None,
    )


def frame(level: Level, state: WorldState, action, fps: int, next_map: Optional[Level] = None,
          script: Optional[ScriptHooks] = None, others_action=None, pending=None):
    """Advance one frame under ``action`` (int32[7]): look, jump pads, keys and doors, walk, collide,
    jump, pickups (keys, switches, episode-ending counts), teleports, hurt zones (``volumes``: outside laser
    tag a death pays -1 and the player comes back at a spawn point, the map going on), the hidden platform (with a
    ``script`` whose ``has_platform``, standing on it fires its trigger instead), map restart. A move of magnitude below 1 from a compiled ``modifyControl`` walks that
    fraction of the top speed (as DMLab's engine scales a move below 127).

    ``next_map``: the level the map restarts into (default ``level``; a
    generated level may re-draw its objects and obstructions per restart):
    the player respawns on its spawn points and its locks apply. ``script``: the level script's
    compiled callbacks (``canPickup`` per pickup, ``pickup`` per taken pickup, then
    ``lookat`` of the zone the gaze rests on, ``hasEpisodeFinished`` at the frame's time; their
    ``game:addScore`` pays, ``game:finishMap``
    restarts the map, an episode they end is a termination; before those, ``modifyControl`` changes the
    action and the door triggers ask ``canTrigger``/``trigger`` whether a door may open, and
    ``rewardOverride`` follows each ``pickup``). In a level with bots, ``others_action`` (int32[B, 7]) moves
    the other players and laser tag plays its frame (``arena.arena_frame``): a tagged agent stands still until
    it comes back, and its score's change is paid. ``pending``: (score float32[], finish bool[]) the agent
    step's ``customDiscreteActions`` left for this frame (``script.script_custom_actions``), paid and
    restarting the map as a ``modifyControl``'s would. Returns (state, reward float32[], restarted bool[]).
    """
    after = level if next_map is None else next_map
    dt = 1.0 / fps
    a = action.astype(jnp.float32)
    play, hook_reward, hook_finish = state.script, jnp.float32(0.0), jnp.bool_(False)
    if script is not None:
        play, a, hook_reward, hook_finish = script_controls(script, state, level, a, fps)
    if pending is not None:
        hook_reward, hook_finish = hook_reward + pending[0], hook_finish | pending[1]
    key, k_spawn = jax.random.split(state.key)
    arena = state.arena
    if arena is not None:   # static: a tagged agent only presses FIRE (to come back)
        a = jnp.where(arena.up[0] | (jnp.arange(a.shape[0]) == A.FIRE), a, 0.0)
    yaw, pitch = look(state.yaw, state.pitch, a[A.LOOK_LEFT_RIGHT], a[A.LOOK_DOWN_UP])
    # DMLab's upmove = jump - crouch: both pressed cancel out
    crouch = (a[A.CROUCH] > 0) & ~(a[A.JUMP] > 0)
    jump_pressed = (a[A.JUMP] > 0) & ~(a[A.CROUCH] > 0)
    heights = has_heights(level)   # static: flat levels keep the flat program
    if heights:
        crouch, jump_pressed = crouch & level.jump_crouch, jump_pressed & level.jump_crouch
        grounded = state.z <= ground(level, state.pos)
    else:
        grounded = state.z <= 0.0
    vel, vz = state.vel, state.vz
    if has_jump_pads(level):   # static: a pad throws the player off the ground
        vel, vz, launched = push(level, state.pos, state.z, vel, vz)
        grounded = grounded & ~launched
    wish_dir = wish_direction(yaw, a[A.STRAFE_LEFT_RIGHT], a[A.MOVE_BACK_FORWARD])
    move = jnp.any(wish_dir != 0)
    if script is not None and script.has_modify_control:   # DMLab's speed scales with the engine's move
        move = jnp.minimum(jnp.maximum(jnp.abs(a[A.STRAFE_LEFT_RIGHT]), jnp.abs(a[A.MOVE_BACK_FORWARD])), 1.0)
    wish_speed = C.MAX_SPEED * jnp.where(crouch, C.CROUCH_SPEED_SCALE, 1.0) * move
    vel = accelerate(vel, wish_dir, wish_speed, grounded, dt)
    door_lock, held_key, unlock_reward = use_key(level, state.door_lock, state.held_key, state.pos)
    gate = door_lock   # with the doors a compiled trigger keeps shut
    if script is not None:
        play, gate, score, finish = script_doors(script, play, state, level, door_zone(level, state.pos), door_lock,
                                                 fps)
        hook_reward, hook_finish = hook_reward + score, hook_finish | finish
    door_open = update_doors(level, state.door_open, gate, state.pos, dt)
    if heights:
        pos, vel, z, vz = move_over_heights(level, door_open, state.pos, vel, state.z, vz, grounded, jump_pressed, dt)
    else:
        pos, vel = move_and_collide(level, door_open, state.pos, vel, dt)
        z, vz = jump(state.z, vz, jump_pressed, dt)
    now = level   # with the pickups a compiled canPickup allows now
    if script is not None and script.has_can_pickup:
        asked = script_inputs(pos, z, vel, yaw, pitch, state.frames + 1, fps, state.episode_return, crouch,
                              _look_rate(state, pitch, a, fps), False, level_walls(level, door_open))
        now = level.replace(pickup_takeable=level.pickup_takeable & script.can_pickup(play, asked, state.level_index))
    taken = takeable_now(level, touching(now, state.pickup_wait, pos, state.goal_choice))
    held_key = hold_key(level, taken, held_key)
    switched, door_lock = throw_switch(level, taken, state.switched, door_lock)
    pickups_taken, finished, counted, bonus = count_pickups(level, taken, state.pickups_taken)
    wait, reward, restart = collect(level, state.pickup_wait, taken)   # a map is cleared of what it holds
    reward, restart = reward + bonus, restart | counted
    ended = jnp.bool_(False)
    if script is not None:
        seconds = (state.frames + 1).astype(jnp.float32) / fps
        inputs = script_inputs(pos, z, vel, yaw, pitch, state.frames + 1, fps, state.episode_return + reward, crouch,
                               _look_rate(state, pitch, a, fps), jnp.any(taken & (level.pickup_teleport >= 0)),
                               level_walls(level, door_open))
        if script.has_pickup or script.has_reward_override:
            play, wait, score, finish = run_pickups(script, play, inputs, state.level_index, taken, wait, fps)
            reward, restart = reward + score, restart | finish
        if script.has_lookat:   # DMLab: after the player's move, before the episode's end is asked
            play, score, finish = script.look(play, inputs, state.level_index)
            reward, restart = reward + score, restart | finish
        if script.has_episode_finished:
            play, ended, score, finish = script.episode_finished(play, inputs, seconds)
            reward, restart = reward + score, restart | finish
        finished = finished | ended
    pos, vel, yaw, _ = teleport(level, taken, pos, vel, yaw)
    platform_frames, platform_reward, on_platform = platform(level, state.platform_frames, pos, fps)
    if script is not None and script.has_platform:   # static: the platform fires the script's trigger
        play, score, finish = script.platform_fired(play, inputs, state.level_index, on_platform)
        hook_reward, hook_finish, on_platform = hook_reward + score, hook_finish | finish, jnp.bool_(False)
    reward = reward + unlock_reward + platform_reward + hook_reward
    restart = (restart | on_platform | hook_finish) & ~finished
    damage, died = None, jnp.bool_(False)
    if has_hurt_zones(level):   # static: in laser tag the damage goes to the shield, elsewhere it kills
        damage = hurt(level, pos, z, dt)
        if arena is None:
            died = damage > 0
            reward = reward - died.astype(jnp.float32)

    if arena is not None:
        act = jnp.concatenate([a[None], jnp.asarray(others_action, jnp.float32)])
        (pos, vel, z, yaw, pitch), arena, wait, score, tag_limit = arena_frame(
            level, door_open, (pos, vel, z, yaw, pitch, state.pos), arena, act, wait,
            pickup_positions(level, state.goal_choice), state.frames + 1, fps, key_words(k_spawn), damage)
        reward, finished = reward + score, finished | tag_limit
        restart = restart & ~finished
    # a restart (or a death) is rare: under vmap only the envs that respawn draw a spawn point
    respawn = restart | died
    spawn_pos, spawn_yaw, spawn_z = where_rows(jnp.any(respawn), _respawn, _no_respawn,
                                               (after, state.goal_choice, k_spawn))
    state = state.replace(
        key=key,
        pos=jnp.where(respawn, spawn_pos, pos),
        vel=jnp.where(respawn, 0.0, vel),
        z=jnp.where(respawn, spawn_z, z),
        vz=jnp.where(respawn, 0.0, vz),
        yaw=jnp.where(respawn, spawn_yaw, yaw),
        pitch=jnp.where(respawn, 0.0, pitch),
        look_rate=_look_rate(state, pitch, a, fps),
        crouch=crouch,
        door_open=door_open,
        pickup_wait=jnp.where(restart, start_wait(level), wait),
        frames=state.frames + 1,
        episode_return=state.episode_return + reward,
        held_key=jnp.where(restart, 0, held_key),
        door_lock=jnp.where(restart, after.door_lock, door_lock),
        platform_frames=jnp.where(restart, 0, platform_frames),
        switched=switched,
        pickups_taken=jnp.where(restart & level.counted_restarts, 0, pickups_taken),
        finished=state.finished | finished,
        script=play if script is None else script.map_restart(play, state.level_index, restart),
        arena=arena,
    )
    return state, reward, restart


def _look_rate(state: WorldState, pitch, a, fps: int):
    """float32[2]: the (pitch, yaw) degrees/s a frame from ``state`` to ``pitch`` under action ``a`` turns."""
    return jnp.stack([pitch - state.pitch, -a[A.LOOK_LEFT_RIGHT] * C.LOOK_DEGREES_PER_PIXEL]) * fps


def guarded_frame(level: Level, state: WorldState, action, fps: int, limit, next_map: Optional[Level] = None,
                  script: Optional[ScriptHooks] = None, others_action=None, pending=None):
    """``frame`` unless the episode is over: a state that is ``done`` stays as it is. ``done`` is set
    once ``limit`` (int32[] frames) is reached or the level finished the episode.

    Returns (state, reward float32[] (0 when not run), restarted bool[] (False when not run))."""
    after, reward, restarted = frame(level, state, action, fps, next_map, script, others_action, pending)
    after = after.replace(done=(after.frames >= limit) | after.finished)
    running = ~state.done
    state = select_tree(running, after, state)
    return state, jnp.where(running, reward, 0.0), restarted & running
