"""The first-person world kernel: movement, collision, doors, pickups, observations."""
from jaxlab.world.env import FirstPersonEnv
from jaxlab.world.state import WorldState

__all__ = ["FirstPersonEnv", "WorldState"]
