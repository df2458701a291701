"""Runs made with Stable-Baselines3 (PPO, A2C, DQN) on Gymnasium classic-control tasks.

The logger is SB3's own: `configure(folder, ["csv"])` writes `progress.csv`; `tensorboard_log=`
writes event files under `tb/<ALGO>_1/`. Faults are set through the algorithm's arguments or a
standard Gymnasium wrapper (TransformReward), as a user would set them.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

ALGO_KW = {  # ordinary settings for short CartPole runs (rl-zoo-like, shortened)
    "PPO": dict(n_steps=256, batch_size=64, n_epochs=10, learning_rate=3e-4, gae_lambda=0.95, gamma=0.99),
    "A2C": dict(n_steps=8, learning_rate=7e-4),
    "DQN": dict(learning_rate=1e-3, buffer_size=20000, learning_starts=1000, batch_size=64, train_freq=4,
                target_update_interval=500, exploration_fraction=0.3, exploration_final_eps=0.05),
}


# SB3 counts log_interval in rollouts for PPO/A2C and in episodes for DQN; A2C's rollouts are 8 steps.
LOG_INTERVAL = {"PPO": 1, "A2C": 10, "DQN": 4}


def fit(out: Path, seed: int, algo: str = "PPO", env_id: str = "CartPole-v1", steps: int = 12000,
        logger: str = "csv", reward_scale: float = 1.0, **algo_kw) -> None:
    """Train one agent; `algo_kw` overrides ALGO_KW (that is where an LR fault goes)."""
    import gymnasium as gym
    import stable_baselines3 as sb3
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor

    env = gym.make(env_id)
    if reward_scale != 1.0:
        env = gym.wrappers.TransformReward(env, lambda r: r * reward_scale)
    env = Monitor(env)
    kw = dict(ALGO_KW[algo])
    kw.update(algo_kw)
    cls = getattr(sb3, algo)
    tb = str(out / "tb") if logger == "tb" else None
    model = cls("MlpPolicy", env, seed=seed, verbose=0, device="cpu", tensorboard_log=tb, **kw)
    if logger == "csv":
        model.set_logger(configure(str(out), ["csv"]))
    with contextlib.redirect_stdout(io.StringIO()):
        model.learn(total_timesteps=steps, log_interval=LOG_INTERVAL[algo])
    env.close()


def summary(out: Path) -> str:
    p = out / "progress.csv"
    if not p.exists():
        return ""
    import csv

    rows = [r for r in csv.DictReader(p.open()) if r.get("rollout/ep_rew_mean")]
    if not rows:
        return ""
    r = [float(x["rollout/ep_rew_mean"]) for x in rows]
    return f"ep_rew_mean {r[0]:.4g} -> {r[-1]:.4g} (max {max(r):.4g}, {len(rows)} rows)"
