"""``jaxlab-demo``: batched random rollouts of a first-person maze or a grid world, with GIFs (see ``cli``)."""
from jaxlab.demo.cli import main, parse_args
from jaxlab.demo.rollout import chunk_size

__all__ = ["chunk_size", "main", "parse_args"]
