"""``jaxlab-demo``: batched random rollouts of a first-person maze or a grid world, with GIFs (see ``cli``)."""
from jaxlab.demo.cli import chunk_size, main, parse_args

__all__ = ["chunk_size", "main", "parse_args"]
