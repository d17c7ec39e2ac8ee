"""Physical constants of the first-person world, in DMLab game units.

A cell is 100 units and walls are 100 high. Movement follows Quake III's
ground model (acceleration toward the wished velocity, friction), which gives
DMLab's 320 units/s top speed.
"""

CELL_SIZE = 100.0            # units per map cell
DEFAULT_FPS = 60
MAX_SPEED = 320.0            # units/s, running
CROUCH_SPEED_SCALE = 0.25    # speed factor while crouching
GROUND_ACCELERATION = 10.0   # 1/s, Quake's pm_accelerate
AIR_ACCELERATION = 1.0       # 1/s while airborne
FRICTION = 6.0               # 1/s
STOP_SPEED = 100.0           # units/s, friction floor
PLAYER_RADIUS = 15.0         # half-width of the player's box, units
PLAYER_HEIGHT = 56.0         # Quake III's standing player box, feet to top: 24 units under its origin and 32 over
EYE_HEIGHT = 50.0            # eye over the floor, standing, units: Quake III's origin 24 over the feet, the eye 26 over it
CROUCH_EYE_HEIGHT = 36.0     # eye over the floor, crouching, units: the origin's 24 and Quake III's crouched 12
JUMP_VELOCITY = 270.0        # units/s, initial upward speed of a jump
GRAVITY = 800.0              # units/s^2
STEP_HEIGHT = 18.0           # units: the highest rise walked up (and drop stepped down) without jumping
LOOK_DEGREES_PER_PIXEL = 0.1056   # degrees turned per frame per LOOK pixel
MAX_PITCH = 89.0             # degrees
PICKUP_DISTANCE = 30.0       # units between centres at which a pickup is taken
DOOR_TRIGGER_DISTANCE = 150.0   # units from a door's centre at which it opens
DOOR_OPEN_SECONDS = 0.5      # time for a door to open or close fully
UNLOCK_DISTANCE = 75.0       # units from a locked door's centre at which a matching key opens it
