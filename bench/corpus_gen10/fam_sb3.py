"""stable-baselines3 PPO / A2C / DQN on gymnasium classic-control envs (progress.csv, tb/, or printed tables)."""

import json
import os

import gymnasium as gym
from stable_baselines3 import A2C, DQN, PPO
from stable_baselines3.common.logger import configure


def run(spec, out):
    c = spec["cfg"]
    algo = {"PPO": PPO, "A2C": A2C, "DQN": DQN}[c["algo"]]
    env = gym.make(c.get("env", "CartPole-v1"))
    fmt = spec["format"]
    kw = dict(c.get("kw", {}))
    model = algo("MlpPolicy", env, seed=spec["seed"], verbose=1 if fmt == "sb3_stdout" else 0, device="cpu", **kw)
    if fmt == "sb3_csv":
        model.set_logger(configure(out, ["csv"]))
    elif fmt == "sb3_tb":
        model.set_logger(configure(os.path.join(out, "tb"), ["tensorboard"]))
    with open(os.path.join(out, "config.json"), "w") as fh:
        json.dump({"algo": c["algo"], "env": c.get("env", "CartPole-v1"), "total_timesteps": c["steps"], **kw}, fh,
                  indent=1)
    model.learn(total_timesteps=c["steps"], log_interval=c.get("log_interval", 1 if c["algo"] == "PPO" else 20))
