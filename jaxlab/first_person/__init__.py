"""The first-person world kernel: movement, collision, doors, pickups, observations."""
from jaxlab.first_person.env import FirstPersonEnv
from jaxlab.first_person.state import WorldState

__all__ = ["FirstPersonEnv", "WorldState"]
