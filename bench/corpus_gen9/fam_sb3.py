"""stable-baselines3 on gymnasium classic-control envs: progress.csv, tb/ event files, or the verbose=1 tables
printed to stdout (captured to train.log)."""

from __future__ import annotations

import os

import gymnasium as gym
import numpy as np
from stable_baselines3 import A2C, DQN, PPO
from stable_baselines3.common.callbacks import EvalCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import VecNormalize

import common as C

ALGOS = {"ppo": PPO, "a2c": A2C, "dqn": DQN}


class ScaleByBounds(gym.ObservationWrapper):
    """Scales every observation into [-1, 1] by the observation space's bounds."""

    def __init__(self, env):
        super().__init__(env)
        self.high = env.observation_space.high.astype(np.float32)

    def observation(self, obs):
        return (obs / self.high).astype(np.float32)


def _linear(start):
    return lambda progress_remaining: start * progress_remaining


def _inverted(start):
    return lambda progress_remaining: start * (1.0 - progress_remaining)


def sb3_run(spec, run_dir):
    kw = dict(spec["kw"])
    algo = kw.pop("algo")
    env_id = kw.pop("env", "CartPole-v1")
    steps = kw.pop("steps")
    out = kw.pop("out")  # csv | tb | stdout
    n_envs = kw.pop("n_envs", 1)
    wrapper = ScaleByBounds if kw.pop("scale_by_bounds", False) else None
    sched = kw.pop("lr_schedule", None)
    log_interval = kw.pop("log_interval", 4 if algo == "dqn" else 1)
    vecnorm = kw.pop("vecnormalize", False)
    eval_freq = kw.pop("eval_freq", 0)
    hp = dict(kw)
    cfg = {"algo": algo.upper(), "env_id": env_id, "n_envs": n_envs, "total_timesteps": steps, "seed": spec["seed"], "policy": "MlpPolicy", "hyperparams": dict(hp)}
    if sched:
        lr0 = hp.pop("learning_rate")
        hp["learning_rate"] = _linear(lr0) if sched == "linear" else _inverted(lr0)
        cfg["hyperparams"]["learning_rate"] = f"lin_{lr0}"
    if wrapper is not None:
        cfg["env_wrapper"] = "ScaleByBounds"
    if vecnorm:
        cfg["normalize"] = {"norm_obs": True, "norm_reward": True}
    if eval_freq:
        cfg["eval"] = {"eval_freq": eval_freq, "n_eval_episodes": 5}
    C.write_yaml(os.path.join(run_dir, "config.yaml"), cfg)
    env = make_vec_env(env_id, n_envs=n_envs, seed=spec["seed"], wrapper_class=wrapper)
    if vecnorm:
        env = VecNormalize(env, norm_obs=True, norm_reward=True)
    callback = None
    if eval_freq:
        eval_env = make_vec_env(env_id, n_envs=1, seed=spec["seed"] + 1000)
        callback = EvalCallback(eval_env, eval_freq=eval_freq, n_eval_episodes=5, verbose=1)
    model = ALGOS[algo]("MlpPolicy", env, seed=spec["seed"], verbose=1 if out == "stdout" else 0, device="cpu", **hp)
    if out == "csv":
        model.set_logger(configure(run_dir, ["csv"]))
    elif out == "tb":
        model.set_logger(configure(os.path.join(run_dir, "tb"), ["tensorboard"]))
    else:
        model.set_logger(configure(None, ["stdout"]))
    model.learn(total_timesteps=steps, log_interval=log_interval, callback=callback)
