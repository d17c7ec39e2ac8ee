"""DMLab's per-frame and event hooks, compiled onto the device: ``modifyControl``, ``rewardOverride``,
``canTrigger``, ``trigger``, ``customDiscreteActions`` and ``lookat`` (:mod:`compile_lua.dmlab.lookat`).

Their arguments are play itself (the agent's actions, a reward event, a trigger the player touches), so
a script that defines one always has it translated (``compile_lua.device``) and run inside the
first-person kernel's step, with DMLab's arguments and meaning:

- ``modifyControl(actions)``, every frame before physics. ``actions`` is DMLab's engine table:
  ``lookDownUp``/``lookLeftRight`` (degrees per millisecond: ``LOOK_DOWN_UP * k`` and
  ``-LOOK_LEFT_RIGHT * k``, k = 0.11 * 60 / 1000), ``moveBackForward``/``strafeLeftRight``
  (``MOVE * 127``), ``crouchJump`` (``(JUMP - CROUCH) * 127``) and ``buttonsDown`` (``FIRE``). The
  table it returns (nil: no change; a missing field keeps its value) is read back as DMLab reads it:
  numbers truncated to integers, the movement fields stored in a signed char, ``crouchJump >= 10``
  jumps and ``< 0`` crouches, bit 0 of ``buttonsDown`` fires.
- ``rewardOverride(kwargs)``, for each taken pickup that pays its class reward (a REWARD or GOAL
  pickup), after its ``pickup``: ``kwargs = {score, reason ('PICKUP_REWARD' | 'PICKUP_GOAL'),
  playerId = 1, team = 'free'}``; a number replaces the class reward (truncated to an integer), nil
  keeps it.
- ``canTrigger(spawnId, targetName, playerId)`` / ``trigger(...)``: the triggers of jaxlab's levels
  are DMLab's text-map doors (``I``/``H``): a trigger of spawn id 0 and target ``door_<x>_<y>`` (the
  door's column and its row counted from the bottom) fires when the player comes within the door's
  reach and again every second while there. ``canTrigger`` false, or ``trigger`` true (the script
  handled it), keeps the door shut until the trigger fires again. A converted ``.map``'s hidden platform
  (``jaxlab.levels.dmlab.quake_movers``) fires its timer's id and target each time the player has stood
  on it its ``platform_seconds``; ``canTrigger`` false skips ``trigger``, whose answer changes nothing.
- ``customDiscreteActions(actions)``, once per agent step before its frames (so before their
  ``modifyControl``), with the array of the agent's values of the level's custom actions
  (:mod:`compile_lua.dmlab.custom_actions`); its answer is ignored.

``game:addScore``/``game:finishMap`` in any of them pay and restart the map as in ``pickup``.
:class:`EventHooks` is the kernel side (``kernels.first_person.script.ScriptHooks``'s hook methods),
mixed into ``dmlab.playtime.DeviceCallbacks``.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from compile_lua.device.source import reject
from compile_lua.device.translate import Translation
from compile_lua.dmlab.custom_actions import HOOK as CUSTOM_ACTIONS, spec_tuples
from compile_lua.dmlab.lookat import EXAMPLE as LOOKAT_EXAMPLE, HOOK as LOOKAT, LookatHook
from jaxlab.env import select_tree
from jaxlab.levels.dmlab.actions import CROUCH, FIRE, JUMP, LOOK_DOWN_UP, LOOK_LEFT_RIGHT, MOVE_BACK_FORWARD, \
    STRAFE_LEFT_RIGHT

#: the hooks, always compiled when a script defines them
HOOKS = ("modifyControl", "rewardOverride", "canTrigger", "trigger", CUSTOM_ACTIONS, LOOKAT)
#: the fields of modifyControl's actions table, as DMLab's engine names them
CONTROLS = ("lookDownUp", "lookLeftRight", "moveBackForward", "strafeLeftRight", "crouchJump", "buttonsDown")
DEGREES_PER_MS_PER_PIXEL = 0.11 * 60 / 1000   # DMLab: a LOOK pixel per frame in degrees per millisecond
MOVE_SCALE = 127        # a move action of 1 is 127 in the engine's command
JUMP_AT = 10            # Quake jumps at an up-move of at least 10, crouches below 0
#: rewardOverride's reasons for a pickup's class reward (reason index 1, 2; 0: no reward event)
REASONS = ("PICKUP_REWARD", "PICKUP_GOAL")
TRIGGER_WAIT_SECONDS = 1.0   # a text-map door trigger fires again after 1 s while touched
PLAYER_ID = 1


def reward_kwargs(score: Any, reason: str) -> Dict[str, Any]:
    """``rewardOverride``'s argument for a pickup's class reward ``score`` (int) with ``reason``."""
    return {"score": score, "reason": reason, "playerId": PLAYER_ID, "team": "free"}


#: example arguments each hook is first translated with (customDiscreteActions': its spec's,
#: ``custom_actions.example``)
EXAMPLES = {"modifyControl": ({k: 0.0 if k.startswith("look") else 0 for k in CONTROLS},),
            "rewardOverride": (reward_kwargs(0, REASONS[0]),),
            "canTrigger": (0, "door_0_0", PLAYER_ID), "trigger": (0, "door_0_0", PLAYER_ID), LOOKAT: LOOKAT_EXAMPLE}


#: hooks whose argument table holds strings (``translate`` traces only top-level string arguments):
#: added after it and traced by :func:`settle`
TABLE_STRINGS = ("rewardOverride",)


def calls(names: Sequence[str], targets: Sequence[Tuple[int, str]],
          examples: Mapping[str, tuple]) -> List[Tuple[str, tuple]]:
    """Every (callback, arguments) the kernel traces of ``names``: the hooks with each reward reason and
    each trigger (spawn id, target) in ``targets`` (their static values decide which branches are traced),
    the other callbacks with their ``examples``."""
    out: List[Tuple[str, tuple]] = []
    for name in names:
        if name == "rewardOverride":
            out += [(name, (reward_kwargs(0, reason),)) for reason in REASONS]
        elif name in ("canTrigger", "trigger"):
            out += [(name, (*key, PLAYER_ID)) for key in targets or [EXAMPLES[name][:2]]]
        else:
            out.append((name, EXAMPLES.get(name) or examples[name]))
    return out


def settle(tr: Translation, traced: Sequence[Tuple[str, tuple]]) -> None:
    """Trace each (callback, arguments) of ``traced``, the arguments as the kernel passes them (constants),
    until the state's kinds stop widening (a branch only one door's name reaches may make a counter a
    float), so that the kernel's traces agree with the layout the compile records
    (``Translation.settle``)."""
    tr.settle([(lambda state, inputs, name=name, args=args: tr.callbacks[name](state, inputs, *args), ())
               for name, args in traced])


def trigger_keys(events: Mapping[str, Sequence[Sequence[Any]]]) -> List[Tuple[int, str]]:
    """Every trigger (spawn id, target) of the recorded episodes' ``events``: the doors' targets (spawn id 0)
    and the hidden platforms' ``platform_triggers`` ([spawn id, target]), sorted."""
    keys = {(0, t) for row in events["door_targets"] for t in row}
    keys |= {(int(i), str(t)) for row in events.get("platform_triggers", ()) for i, t in row}
    return sorted(keys)


def door_targets(level: Any) -> List[str]:
    """DMLab's target name of each valid door of ``level`` (a Level: ``door_<column>_<row from the bottom>``), in
    door order."""
    rows = int(level.rows)
    return [f"door_{int(c)}_{rows - 1 - int(r)}"
            for (r, c), ok in zip(np.asarray(level.door_cell), np.asarray(level.door_valid)) if ok]


def pickup_events(rows: Sequence[Mapping[str, Any]]) -> Tuple[List[int], List[int]]:
    """(class reward as DMLab's integer score, reason index into :data:`REASONS` + 1, 0 for none) of each
    compiled pickup row (``dmlab.entities.PickupClass`` under ``"class"``)."""
    scores = [int(row["class"].reward) for row in rows]
    reasons = [0 if not row["class"].modelled else 2 if row["class"].ends_map else 1 for row in rows]
    return scores, reasons


def controls_table(action) -> Dict[str, Any]:
    """modifyControl's ``actions`` table of the kernel's action ``action`` (float32[7])."""
    move = jnp.round(action * MOVE_SCALE).astype(jnp.int32)
    return {"lookDownUp": action[LOOK_DOWN_UP] * DEGREES_PER_MS_PER_PIXEL,
            "lookLeftRight": -action[LOOK_LEFT_RIGHT] * DEGREES_PER_MS_PER_PIXEL,
            "moveBackForward": move[MOVE_BACK_FORWARD], "strafeLeftRight": move[STRAFE_LEFT_RIGHT],
            "crouchJump": move[JUMP] - move[CROUCH], "buttonsDown": jnp.round(action[FIRE]).astype(jnp.int32)}


def _signed_char(v) -> jnp.ndarray:
    """An engine number read into a signed char: truncated, then wrapped into -128..127."""
    return jnp.mod(jnp.trunc(v).astype(jnp.int32) + 128, 256) - 128


def controls_action(table: Mapping[str, Any], action) -> jnp.ndarray:
    """The kernel's action (float32[7]) after modifyControl returned ``table`` (its fields as arrays; a
    missing field keeps ``action``'s value)."""
    out = action

    def given(key):
        return None if table.get(key) is None else jnp.asarray(table[key], jnp.float32)

    if given("lookDownUp") is not None:
        out = out.at[LOOK_DOWN_UP].set(given("lookDownUp") / DEGREES_PER_MS_PER_PIXEL)
    if given("lookLeftRight") is not None:
        out = out.at[LOOK_LEFT_RIGHT].set(-given("lookLeftRight") / DEGREES_PER_MS_PER_PIXEL)
    for key, index in (("moveBackForward", MOVE_BACK_FORWARD), ("strafeLeftRight", STRAFE_LEFT_RIGHT)):
        if given(key) is not None:
            out = out.at[index].set(jnp.clip(_signed_char(given(key)) / MOVE_SCALE, -1.0, 1.0))
    if given("crouchJump") is not None:
        up = _signed_char(given("crouchJump"))
        out = out.at[JUMP].set((up >= JUMP_AT).astype(jnp.float32)).at[CROUCH].set((up < 0).astype(jnp.float32))
    if given("buttonsDown") is not None:
        out = out.at[FIRE].set(jnp.mod(jnp.trunc(given("buttonsDown")).astype(jnp.int32), 2).astype(jnp.float32))
    return out


def _pick(index, options: Sequence[Any]) -> Any:
    """``options[index]`` for a traced ``index`` (options: pytrees of one structure)."""
    return jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs])[index], *options)


def episode_table(rows: Sequence[Sequence[int]], width: int) -> jnp.ndarray:
    """int32[len(rows), max(width, 1)]: each episode's row, 0-padded."""
    table = np.zeros((len(rows), max(width, 1)), np.int32)
    for e, row in enumerate(rows):
        table[e, :len(row)] = row
    return jnp.asarray(table)


def id_bounds(rows: Sequence[Sequence[int]]) -> Dict[str, tuple]:
    """``Translation.bounds`` of the callbacks the kernel passes a pickup id (``pickup``, ``canPickup``),
    given each episode's pickup ids (``rows``): the interval of those ids and 0 (a padded slot's id, and
    the example argument a callback is first traced with)."""
    ids = [0] + [i for row in rows for i in row]
    return {name: ((min(ids), max(ids)),) for name in ("pickup", "canPickup")}


class EventHooks(LookatHook):
    """The hooks' kernel side, mixed into ``DeviceCallbacks``: needs ``translation`` and calls
    :meth:`init_hooks` with ``meta["device"]`` and the bank's pickup (N) and door (D) counts."""

    translation: Translation

    def init_hooks(self, device: Mapping[str, Any], pickups: int, doors: int) -> None:
        """Which hooks ``device`` (``meta["device"]``) compiled, and their per-episode tables: each pickup's
        class score and reason (int32[E, N]), each door's trigger (int32[E, D]) and the hidden platform's
        (int32[E], -1 for none), indices into :attr:`trigger_targets` (:func:`trigger_keys`), and the custom
        actions (:attr:`custom_actions`: ``(name, min, max)`` each), and the lookat zones (:meth:`init_lookat`)."""
        names = device["callbacks"]
        self.init_lookat(device)
        self.custom_actions = spec_tuples(device.get("custom_actions", ())) if CUSTOM_ACTIONS in names else ()
        self.has_modify_control = "modifyControl" in names
        self.has_reward_override = "rewardOverride" in names
        self.has_can_trigger, self.has_trigger = "canTrigger" in names, "trigger" in names
        self.has_triggers = self.has_can_trigger or self.has_trigger
        self.doors = doors
        targets, plats = device["door_targets"], device.get("platform_triggers") or [[] for _ in device["door_targets"]]
        self.trigger_targets = trigger_keys(device)
        self.pickup_scores = episode_table(device["pickup_scores"], pickups)
        self.pickup_reasons = episode_table(device["pickup_reasons"], pickups)
        self.door_target = episode_table([[self.trigger_targets.index((0, t)) for t in row] for row in targets], doors)
        self.has_platform = self.has_triggers and any(plats)
        self.platform_target = jnp.asarray([self.trigger_targets.index((int(row[0][0]), str(row[0][1]))) if row else -1
                                            for row in plats], jnp.int32)

    def hooks_start(self) -> Dict[str, Any]:
        """The hooks' own part of an episode's play state: each door's trigger wait (int32[D] frames) and
        whether its last firing opened it (bool[D]), without triggers none; the lookat zone looked at last
        (:meth:`lookat_start`)."""
        if not self.has_triggers:
            return self.lookat_start()
        return {"doors": {"wait": jnp.zeros(self.doors, jnp.int32), "open": jnp.zeros(self.doors, bool)},
                **self.lookat_start()}

    def run(self, name: str, play, inputs, *args):
        """``api:<name>(*args)`` on ``play`` (its ``key`` and ``vars``; the rest rides along):
        (play, result, effects {"score", "finish"})."""
        new, result, effects = self.translation.callbacks[name]({"key": play["key"], "vars": play["vars"]},
                                                                inputs, *args)
        return dict(play, **new), result, effects

    def modify_control(self, play, inputs, action):
        """``api:modifyControl(actions)`` of the action float32[7]: (play, action float32[7], score
        float32[], finish bool[])."""
        play, result, effects = self.run("modifyControl", play, inputs, controls_table(action))
        return (play, action if result is None else controls_action(result, action), effects["score"],
                effects["finish"])

    def custom_discrete_actions(self, play, inputs, values):
        """``api:customDiscreteActions(actions)`` of the step's custom action values (int32[K]): (play, score
        float32[] added, finish bool[] map ends)."""
        play, _, effects = self.run(CUSTOM_ACTIONS, play, inputs, [values[i] for i in range(len(self.custom_actions))])
        return play, effects["score"], effects["finish"]

    def reward_override(self, play, inputs, level_index, index):
        """``api:rewardOverride{score, reason, ...}`` for the bank level's taken pickup ``index``: (play,
        float32[] reward to add to its class reward (the override minus the class reward, plus its
        ``game:addScore``), finish bool[]); no call for a pickup without a reward event."""
        score = self.pickup_scores[level_index, index]
        options = [(play, jnp.float32(0.0), jnp.bool_(False))]
        for reason in REASONS:
            new, result, effects = self.run("rewardOverride", play, inputs, reward_kwargs(score, reason))
            change = 0.0 if result is None else jnp.trunc(jnp.asarray(result, jnp.float32)) - score
            options.append((new, jnp.asarray(change + effects["score"], jnp.float32), jnp.asarray(effects["finish"])))
        return _pick(self.pickup_reasons[level_index, index], options)

    def _fire(self, play, inputs, key: Tuple[int, str]):
        """One firing of the trigger ``key`` (spawn id, target): (play, opens bool[] (canTrigger allowed it and
        trigger did not handle it), score float32[], finish bool[])."""
        opens, score, finish = jnp.bool_(True), jnp.float32(0.0), jnp.bool_(False)
        if self.has_can_trigger:
            play, result, effects = self.run("canTrigger", play, inputs, *key, PLAYER_ID)
            opens, score, finish = jnp.asarray(result, bool), effects["score"], effects["finish"]
        if self.has_trigger:
            new, result, effects = self.run("trigger", play, inputs, *key, PLAYER_ID)
            play = select_tree(opens, new, play)
            score = score + jnp.where(opens, effects["score"], 0.0)
            finish = finish | (opens & effects["finish"])
            opens = opens & ~(jnp.bool_(False) if result is None else jnp.asarray(result, bool))
        return play, opens, score, finish

    def door_triggers(self, play, inputs, level_index, zone, fps: int):
        """Fire the door triggers the player is in (``zone`` bool[D]) whose wait is over, in door order:
        (play, open bool[D] (each door's last firing opened it), score float32[], finish bool[])."""
        doors = play["doors"]
        wait = jnp.maximum(doors["wait"] - 1, 0)
        fire = zone & (wait == 0)
        targets = self.door_target[level_index]

        def one(d, carry):
            play, opened, score, finish = carry
            options = [self._fire(play, inputs, key) for key in self.trigger_targets]
            new, opens, add, ends = _pick(targets[d], options)
            on = fire[d]
            return (select_tree(on, new, play), opened.at[d].set(jnp.where(on, opens, opened[d])),
                    score + jnp.where(on, add, 0.0), finish | (on & ends))

        carry = (play, doors["open"], jnp.float32(0.0), jnp.bool_(False))
        if self.trigger_targets:
            carry = jax.lax.fori_loop(0, zone.shape[0], one, carry)
        play, opened, score, finish = carry
        wait = jnp.where(fire, round(TRIGGER_WAIT_SECONDS * fps), wait).astype(jnp.int32)
        return dict(play, doors={"wait": wait, "open": opened}), opened, score, finish

    def platform_fired(self, play, inputs, level_index, fire):
        """When ``fire`` (bool[]: the player has stood on the hidden platform its time), its trigger of the
        bank level ``level_index``: (play, score float32[], finish bool[])."""
        options = [self._fire(play, inputs, key) for key in self.trigger_targets]
        new, _, score, finish = _pick(jnp.maximum(self.platform_target[level_index], 0), options)
        on = fire & (self.platform_target[level_index] >= 0)
        return select_tree(on, new, play), jnp.where(on, score, 0.0), on & finish

    def check_hooks(self, state) -> None:
        """Trace each hook once on ``state`` (an episode's play state); DeviceRejection at the hook's line
        where its answer is not what DMLab reads."""
        tr, out = self.translation, self.translation.outline

        def answer(name, *args):
            return jax.eval_shape(lambda s, i: self.run(name, s, i, *args)[1], state, tr.inputs())

        def refuse(name, got, want):
            reject(out.path, out.methods[name].line, f"api:{name} returning {got}", f"it must return {want}")

        if self.has_modify_control:
            result = answer("modifyControl", controls_table(jnp.zeros(7, jnp.float32)))
            bad = [k for k in CONTROLS if isinstance(result, dict) and result.get(k) is not None
                   and (getattr(result[k], "shape", None) != () or result[k].dtype == jnp.bool_)]
            if result is not None and (not isinstance(result, dict) or bad):
                refuse("modifyControl", f"{bad[0]} = {result[bad[0]].dtype}" if bad else
                       getattr(result, "dtype", type(result).__name__),
                       f"the actions table (numbers in {', '.join(CONTROLS)}) or nil")
        if self.has_reward_override:
            for reason in REASONS:
                answer("rewardOverride", reward_kwargs(jnp.int32(0), reason))
                kinds = tr.results["rewardOverride"]
                if kinds not in ((), ("nil",), ("number",)):
                    refuse("rewardOverride", " and ".join(kinds), "one number (the score) or nil")
        for name, want in (("canTrigger", "a boolean (true or false)"), ("trigger", "a boolean or nil")):
            if name in tr.callbacks:
                for key in self.trigger_targets or [EXAMPLES[name][:2]]:
                    result = answer(name, *key, PLAYER_ID)
                    boolean = getattr(result, "dtype", None) == jnp.bool_ and result.shape == ()
                    if not boolean and not (result is None and name == "trigger"):
                        refuse(name, "nil" if result is None else getattr(result, "dtype", type(result).__name__),
                               want)
