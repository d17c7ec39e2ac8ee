"""One frame of the first-person world, and the start of an episode."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.level import Level
from jaxlab.first_person import actions as A
from jaxlab.first_person import constants as C
from jaxlab.first_person.doors import update_doors
from jaxlab.first_person.movement import accelerate, jump, look, move_and_collide, wish_direction
from jaxlab.first_person.pickups import collect
from jaxlab.first_person.state import WorldState


def _masked_choice(key, mask) -> jnp.ndarray:
    """int32[]: a uniformly random index among the True entries of ``mask``."""
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)


def spawn(level: Level, goal_choice, key):
    """A random allowed spawn point for ``goal_choice`` and a random yaw:
    (pos float32[2] units, yaw float32[] degrees)."""
    k_pos, k_yaw = jax.random.split(key)
    index = _masked_choice(k_pos, level.spawn_allowed[goal_choice])
    yaw = jax.random.uniform(k_yaw, (), jnp.float32, -180.0, 180.0)
    return level.spawn_pos[index], yaw


def new_episode(level: Level, level_index, key) -> WorldState:
    """The state at the start of an episode of ``level``: a random goal choice,
    the player at a random allowed spawn, every pickup present."""
    key, k_goal, k_spawn = jax.random.split(key, 3)
    goal_choice = _masked_choice(k_goal, level.goal_choice_valid)
    pos, yaw = spawn(level, goal_choice, k_spawn)
    zero = jnp.float32(0.0)
    return WorldState(
        key=key, level_index=jnp.asarray(level_index, jnp.int32), goal_choice=goal_choice,
        pos=pos, z=zero, vel=jnp.zeros(2, jnp.float32), vz=zero, yaw=yaw, pitch=zero,
        look_rate=jnp.zeros(2, jnp.float32), crouch=jnp.bool_(False),
        door_open=jnp.zeros(level.door_valid.shape, jnp.float32),
        pickup_wait=jnp.zeros(level.pickup_valid.shape, jnp.int32),
        frames=jnp.int32(0), episode_return=zero, done=jnp.bool_(False),
    )


def frame(level: Level, state: WorldState, action, fps: int):
    """Advance one frame under ``action`` (int32[7]): look, walk, collide,
    jump, doors, pickups, map restart. Returns (state, reward float32[])."""
    dt = 1.0 / fps
    a = action.astype(jnp.float32)
    key, k_spawn = jax.random.split(state.key)
    yaw, pitch = look(state.yaw, state.pitch, a[A.LOOK_LEFT_RIGHT], a[A.LOOK_DOWN_UP])
    crouch = action[A.CROUCH] > 0
    wish_dir = wish_direction(yaw, a[A.STRAFE_LEFT_RIGHT], a[A.MOVE_BACK_FORWARD])
    wish_speed = C.MAX_SPEED * jnp.where(crouch, C.CROUCH_SPEED_SCALE, 1.0) * jnp.any(wish_dir != 0)
    vel = accelerate(state.vel, wish_dir, wish_speed, state.z <= 0.0, dt)
    door_open = update_doors(level, state.door_open, state.pos, dt)
    pos, vel = move_and_collide(level, door_open, state.pos, vel, dt)
    z, vz = jump(state.z, state.vz, action[A.JUMP] > 0, dt)
    wait, reward, restart = collect(level, state.pickup_wait, pos, state.goal_choice)

    spawn_pos, spawn_yaw = spawn(level, state.goal_choice, k_spawn)
    look_rate = jnp.stack([pitch - state.pitch, -a[A.LOOK_LEFT_RIGHT] * C.LOOK_DEGREES_PER_PIXEL]) * fps
    state = state.replace(
        key=key,
        pos=jnp.where(restart, spawn_pos, pos),
        vel=jnp.where(restart, 0.0, vel),
        z=jnp.where(restart, 0.0, z),
        vz=jnp.where(restart, 0.0, vz),
        yaw=jnp.where(restart, spawn_yaw, yaw),
        pitch=jnp.where(restart, 0.0, pitch),
        look_rate=look_rate,
        crouch=crouch,
        door_open=door_open,
        pickup_wait=jnp.where(restart, 0, wait),
        frames=state.frames + 1,
        episode_return=state.episode_return + reward,
    )
    return state, reward
