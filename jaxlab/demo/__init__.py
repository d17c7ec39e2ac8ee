"""``jaxlab-demo``: batched random rollouts of a first-person maze or a grid world, with GIFs (see ``cli``)."""
from jaxlab.demo.cli import main, parse_args

__all__ = ["main", "parse_args"]
