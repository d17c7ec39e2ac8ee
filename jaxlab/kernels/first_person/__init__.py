"""The first-person world kernel: movement, collision, doors, pickups, observations."""
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.kernels.first_person.state import WorldState

__all__ = ["FirstPersonEnv", "WorldState"]
