"""Agents that learn on jaxlab envs: PPO with rollouts and updates in one ``jax.jit``.

::

    import jax, jaxlab
    from jaxlab import agents

    env = jaxlab.make("pushbox", observations=("WORLD.LAYER", "1.POSITION", "1.REWARD"))
    config = agents.PPOConfig(total_env_steps=200_000, num_envs=64)
    params, metrics = agents.make_train(config, env)(jax.random.PRNGKey(0))
    metrics["episode_return"]                   # float32[updates, players]
    agent = agents.make_agent(env, config.hidden_size)
    agents.evaluate(agent, params, jax.random.PRNGKey(1), num_envs=64, steps=200)   # (mean return [A], envs done)
    agents.rollout_frames(agent, params, jax.random.PRNGKey(2), steps=100)          # uint8[T, H, W, 3]

Modules: ``tasks`` (how a learner sees each family: inputs, actions, rewards),
``networks`` (the actor-critic of each observation kind), ``rollout`` (acting
in a batch of envs, evaluation, pictures), ``ppo`` (the config, the loss and
``make_train``), ``by_level`` (evaluation level by level on a suite: ``evaluate_levels``,
``mean_by_level``), ``pictures`` (learning curves, per-level score bars, side-by-side GIFs). ``make_train``
also takes ``jaxlab.sharded(env)``: the envs then run split over the devices.
"""
from jaxlab.agents.by_level import evaluate_levels, level_rows, mean_by_level
from jaxlab.agents.networks import GridNetwork, PixelNetwork, TextNetwork, network_for
from jaxlab.agents.ppo import PPOConfig, advantages_and_targets, make_train, ppo_loss
from jaxlab.agents.rollout import POLICIES, Agent, evaluate, make_agent, rollout_frames
from jaxlab.agents.tasks import AgentTask, GridTask, PixelTask, TextTask, agent_task

__all__ = ["POLICIES", "Agent", "AgentTask", "GridNetwork", "GridTask", "PPOConfig", "PixelNetwork", "PixelTask",
           "TextNetwork", "TextTask", "advantages_and_targets", "agent_task", "evaluate", "evaluate_levels",
           "level_rows", "make_agent", "make_train", "mean_by_level", "network_for", "ppo_loss", "rollout_frames"]
