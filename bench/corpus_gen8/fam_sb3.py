"""stable-baselines3 runs (PPO / A2C / DQN) on gymnasium CartPole-v1, logged to progress.csv or tb/."""

from __future__ import annotations

import os

import gymnasium as gym
from common import set_seed, write_yaml_flat


class RewardToCost(gym.RewardWrapper):
    """A reward->cost conversion carried over from another project (where the env returned costs)."""

    def reward(self, r):
        return -r


def sb3_run(spec: dict, out: str) -> None:
    from stable_baselines3 import A2C, DQN, PPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor

    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    env = Monitor(gym.make("CartPole-v1"))  # episode returns recorded on the true reward
    if kw.get("negate_reward"):
        env = RewardToCost(env)
    algo = kw["algo"]
    params = dict(kw.get("params", {}))
    cls = {"ppo": PPO, "a2c": A2C, "dqn": DQN}[algo]
    model = cls("MlpPolicy", env, seed=seed, device="cpu", verbose=0, **params)
    if spec["format"] == "sb3_tb":
        logger = configure(os.path.join(out, "tb"), ["tensorboard"])
    else:
        logger = configure(out, ["csv"])
    model.set_logger(logger)
    write_yaml_flat(os.path.join(out, "config.yaml"), {"algo": algo, "env_id": "CartPole-v1", "n_timesteps": kw["steps"], "policy": "MlpPolicy", "seed": seed,
                                                      **params, **({"env_wrapper": "utils.wrappers.RewardToCost"} if kw.get("negate_reward") else {})})
    model.learn(total_timesteps=kw["steps"], log_interval=kw.get("log_interval", 1 if algo == "ppo" else (100 if algo == "a2c" else 4)))
    logger.close()


RUNNERS = {"sb3": sb3_run}
