"""Laser tag's rules as data: gadgets, shield and armour, pickups, tags and respawns.

DeepMind Lab's laser tag is Quake III Arena's free-for-all under other names
(its ``inventory.GADGETS``): the Impulse gadget is the gauntlet, the Rapid
gadget the machine gun, the Orb gadget the rocket launcher, the Beam gadget
the lightning gun and the Disc gadget the railgun; the shield is health and
a tag a frag. The numbers are the engine's (``g_weapon.c``, ``bg_misc.c``,
``g_client.c``, ``g_active.c``, ``g_combat.c``):

- a player spawns with a shield of 125 that decays by 1 a second to its
  maximum of 100, no armour, the Rapid gadget with 100 charges and the
  Impulse gadget (unlimited);
- damage first goes to the armour, which takes 66 % of each hit (rounded up)
  while it lasts; damage a player does to itself is halved;
- a player whose shield falls to 0 is tagged: the tagger scores +1, a player
  who tags itself (the Orb's blast) scores -1; the tagged player may come
  back after 1.7 s by pressing FIRE and is brought back after 20 s more;
  bots come back at once;
- gadget pickups give charges (their quantity, or 1 more when the player
  already holds as many; at most 200) and come back after 5 s; the large
  shield boost gives 50 up to the maximum (taken only below it) and comes
  back after 35 s; armour gives 50 up to 200 and comes back after 25 s;
- DMLab-30's levels end at 100 tags (the reference) or after 240 s.

Times are in seconds or milliseconds here; the kernel converts them to frames
at its frame rate.
"""
from __future__ import annotations

from typing import NamedTuple, Tuple

import numpy as np


class Gadget(NamedTuple):
    """One gadget (host-side data).

    name: DMLab's name; damage: per hit, shield points; refire_ms: time between shots;
    reach: how far a shot reaches, units; start_charges: charges at spawn (-1 unlimited,
    0 not held); pickup_charges: charges a pickup of it gives (0: never a pickup);
    spread_degrees: the random deviation of a shot (uniform within ± this, horizontal);
    blast_radius: units of the blast around the point a shot stops at (0: none), which does
    ``damage`` scaled down linearly to 0 at the radius, to everyone but the player hit.
    """

    name: str
    damage: float
    refire_ms: float
    reach: float
    start_charges: int
    pickup_charges: int
    spread_degrees: float = 0.0
    blast_radius: float = 0.0


GADGETS: Tuple[Gadget, ...] = (
    Gadget("impulse", 50.0, 400.0, 32.0, -1, 0),
    Gadget("rapid", 7.0, 100.0, 8192.0, 100, 0, spread_degrees=1.4),
    Gadget("orb", 100.0, 800.0, 8192.0, 0, 10, blast_radius=120.0),
    Gadget("beam", 8.0, 50.0, 768.0, 0, 100),
    Gadget("disc", 100.0, 1500.0, 8192.0, 0, 10),
)
GADGET_INDEX = {g.name: i for i, g in enumerate(GADGETS)}
IMPULSE, RAPID, ORB, BEAM, DISC = (GADGET_INDEX[n] for n in ("impulse", "rapid", "orb", "beam", "disc"))
NUM_GADGETS = len(GADGETS)
#: the gadget held at spawn, and the one fallen back on when the held one runs out (if charged)
SPAWN_GADGET = RAPID
MAX_CHARGES = 200
UNLIMITED = 1_000_000   # the charge count standing for "unlimited"

GADGET_DAMAGE = np.asarray([g.damage for g in GADGETS], np.float32)
GADGET_REFIRE_MS = np.asarray([g.refire_ms for g in GADGETS], np.float32)
GADGET_REACH = np.asarray([g.reach for g in GADGETS], np.float32)
GADGET_SPREAD = np.asarray([g.spread_degrees for g in GADGETS], np.float32)
GADGET_BLAST = np.asarray([g.blast_radius for g in GADGETS], np.float32)
START_CHARGES = np.asarray([UNLIMITED if g.start_charges < 0 else g.start_charges for g in GADGETS], np.int32)
PICKUP_CHARGES = np.asarray([g.pickup_charges for g in GADGETS], np.int32)

SPAWN_SHIELD = 125.0
MAX_SHIELD = 100.0
MAX_ARMOUR = 200.0
ARMOUR_SHARE = 0.66
DECAY_PER_SECOND = 1.0       # shield and armour points lost per second above MAX_SHIELD
SELF_DAMAGE_SCALE = 0.5

RESPAWN_DELAY_S = 1.7        # a tagged player may come back (FIRE) after this
FORCED_RESPAWN_S = 20.0      # ... and is brought back this long after that
TAG_LIMIT = 100

#: the pickups of laser tag: (pickup name, gadget index or -1, shield, armour, seconds to come back)
ARENA_PICKUPS: Tuple[Tuple[str, int, float, float, float], ...] = (
    ("orb_gadget", ORB, 0.0, 0.0, 5.0),
    ("beam_gadget", BEAM, 0.0, 0.0, 5.0),
    ("disc_gadget", DISC, 0.0, 0.0, 5.0),
    ("shield_boost", -1, 50.0, 0.0, 35.0),
    ("armour", -1, 0.0, 50.0, 25.0),
)
#: DMLab's weapon and item choices for the procedural maps' 'w' and 'u' cells
WEAPON_PICKUPS = ("orb_gadget", "beam_gadget", "disc_gadget")
ITEM_PICKUPS = ("shield_boost", "armour")

#: players' colours (the agent first), as DMLab's coloured bots
PLAYER_COLOURS: Tuple[Tuple[int, int, int], ...] = (
    (235, 235, 240), (220, 50, 50), (50, 110, 230), (240, 200, 40), (60, 190, 80), (200, 80, 220),
    (250, 130, 30), (40, 200, 210),
)
MAX_PLAYERS = len(PLAYER_COLOURS)
PLAYER_RADIUS_DRAWN = 15.0   # units, half the width a player is drawn
