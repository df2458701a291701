#!/usr/bin/env python3
"""Write the `fire` and `quiet` fixture logs beside every detector.

    python scripts/make_detector_fixtures.py        # (re)writes knowledge/detectors/fixtures/

Each fixture is a small JSONL log shaped like a real run (noisy decaying loss, warmup, eval
rows every N steps) with exactly the pattern its detector looks for (fire) or a healthy run
that looks closest to it, including the benign look-alikes that must stay quiet: early
GradScaler back-offs, one small recovered spike, NaN explained variance, a critic loss that
never reaches 0. Deterministic: a fixed seed per fixture.
"""

from __future__ import annotations

import json
import math
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent / "knowledge" / "detectors" / "fixtures"


def rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def decay(n: int, start: float = 2.3, end: float = 0.4, tau: float = 0.25, noise: float = 0.03, r=None) -> np.ndarray:
    t = np.arange(n) / n
    y = end + (start - end) * np.exp(-t / tau)
    return y * (1 + noise * (r or rng("d")).standard_normal(n))


def lr_schedule(n: int, peak: float = 3e-4, warmup: int = 50) -> np.ndarray:
    steps = np.arange(n)
    warm = peak * (steps + 1) / warmup
    prog = np.clip((steps - warmup) / max(1, n - warmup), 0, 1)
    cos = peak * 0.5 * (1 + np.cos(math.pi * prog))
    return np.where(steps < warmup, warm, cos)


def rows(**series) -> list[dict]:
    n = max(len(v) for v in series.values())
    out = []
    for i in range(n):
        row = {"step": i + 1}
        for k, v in series.items():
            if i < len(v) and v[i] is not None:
                x = float(v[i])
                row[k] = float(f"{x:.5g}") if math.isfinite(x) else x
        out.append(row)
    return out


def eval_rows(every: int, values, key: str = "eval_loss") -> list[dict]:
    return [{"step": (i + 1) * every, key: float(f"{float(v):.5g}")} for i, v in enumerate(values)]


def write(det: str, which: str, records: list[dict]) -> None:
    folder = ROOT / det
    folder.mkdir(parents=True, exist_ok=True)
    records = sorted(records, key=lambda r: r.get("step", 0))
    with open(folder / f"{which}.jsonl", "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, allow_nan=True) + "\n")


def write_trainer_state(det: str, which: str, records: list[dict]) -> None:
    """A fixture as the HF Trainer writes it (trainer_state.json): for detectors judged only on the
    logs of some frameworks."""
    folder = ROOT / det
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(f"{which}.*"):
        old.unlink()
    state = {"global_step": records[-1]["step"], "log_history": records}
    (folder / f"{which}.trainer_state.json").write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")


def write_sb3_progress(det: str, which: str, columns: dict) -> None:
    """A fixture as Stable-Baselines3's CSV logger writes it (progress.csv, its own key names):
    for detectors judged only on SB3 runs."""
    folder = ROOT / det
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(f"{which}.*"):
        old.unlink()
    keys = sorted(columns)
    n = max(len(v) for v in columns.values())
    lines = [",".join(keys)]
    for i in range(n):
        lines.append(",".join("" if i >= len(columns[k]) or not math.isfinite(float(columns[k][i]))
                              else f"{float(columns[k][i]):.6g}" for k in keys))
    (folder / f"{which}.progress.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def healthy(name: str, n: int = 400) -> dict:
    r = rng(name)
    return {
        "loss": decay(n, r=r),
        "grad_norm": 1.0 + 0.3 * np.abs(r.standard_normal(n)),
        "learning_rate": lr_schedule(n),
    }


def main() -> None:
    F: dict[str, tuple[list[dict], list[dict]]] = {}
    CONFIGS: dict[str, tuple[dict, dict]] = {}  # a config beside the log: <name>.config.json

    def pair(det: str, fire: list[dict] | None, quiet: list[dict]) -> None:
        F[det] = (fire, quiet)

    # NaN family
    h = healthy("nan")
    late = h["loss"].copy(); late[300:] = np.nan
    gn = h["grad_norm"].copy(); gn[290:300] = np.linspace(5, 900, 10); gn[300:] = np.nan
    pair("det-loss-nan", rows(loss=late, grad_norm=gn, learning_rate=h["learning_rate"]), rows(**h))
    early = h["loss"].copy(); early[3:] = np.nan
    pair("det-loss-nan-early", rows(loss=early, learning_rate=h["learning_rate"]), rows(**h))
    gn_first = h["grad_norm"].copy(); gn_first[290:] = np.nan  # gradients go bad ten steps before the loss
    pair("det-gradnorm-nan", rows(loss=late, grad_norm=gn_first), rows(loss=late, grad_norm=gn))
    pair("det-gradnorm-before-nan", rows(loss=late, grad_norm=gn), rows(**h))
    hidden = h["grad_norm"].copy(); hidden[120::37] = np.nan
    pair("det-gradnorm-nan-hidden", rows(loss=h["loss"], grad_norm=hidden), rows(**h))
    ev = decay(10, 2.2, 0.6, r=rng("ev")); ev_bad = ev.copy(); ev_bad[6:] = np.nan
    pair("det-eval-nan", rows(**h) + eval_rows(40, ev_bad), rows(**h) + eval_rows(40, ev))
    div = h["loss"].copy(); div[250:] = div[250:] * 0 + 7.5 + 0.2 * rng("div").standard_normal(150)
    one = h["loss"].copy(); one[200] *= 2.5  # one recovered spike: benign
    pair("det-divergence", rows(loss=div), rows(loss=one))

    # won't learn
    r = rng("flat")
    flat = 2.303 + 0.01 * r.standard_normal(400)
    pair("det-loss-flat", rows(loss=flat, learning_rate=lr_schedule(400)), rows(**healthy("flat2")))
    near = 2.30 + 0.02 * rng("lnc").standard_normal(400)
    pair("det-loss-near-ln-c", rows(loss=near), rows(loss=decay(400, 2.3, 0.3, r=rng("lnc2"))))
    CONFIGS["det-loss-near-ln-c"] = ({"num_classes": 10}, {"num_classes": 10})
    t4 = np.arange(400)
    rebound = np.where(t4 < 120, 3.0 - 1.6 * t4 / 120, 1.4 + 0.3 * (t4 - 120) / 280) + 0.03 * rng("reb").standard_normal(400)
    wobble = decay(400, 3.0, 1.4, r=rng("reb2")) + 0.05 * np.sin(t4 / 15.0)  # noise around a plateau stays quiet
    pair("det-loss-rebound", rows(loss=rebound), rows(loss=wobble))
    died = near.copy(); died[12:16] = [4.8, 9.5, 5.1, 2.9]  # blew up a few logs in, then pinned to ln(10)
    pair("det-loss-chance-after-blowup", rows(loss=died), rows(loss=near))  # quiet: stuck from the start
    CONFIGS["det-loss-chance-after-blowup"] = ({"num_classes": 10}, {"num_classes": 10})
    t = np.arange(400)
    crawl = 2.30 - 0.12 * t / 400 + 0.004 * rng("crawl").standard_normal(400)
    pair("det-loss-crawl", rows(loss=crawl), rows(loss=decay(400, r=rng("crawlq"))))
    neg = decay(400, 0.8, -0.6, r=rng("neg"), noise=0.0) + 0.01 * rng("neg2").standard_normal(400)
    pair("det-loss-negative", rows(loss=neg), rows(loss=decay(400, r=rng("negq"))))
    low = np.abs(0.001 + 0.0005 * rng("low").standard_normal(400))
    pair("det-loss-low-start", rows(loss=low), rows(loss=decay(400, r=rng("lowq"))))

    # a loss that explodes early and comes back only to its starting level (the model died)
    ex = decay(400, r=rng("ex")); ex[20:24] = [9.0, 60.0, 400.0, 35.0]; ex[24:] = 2.3 + 0.02 * rng("ex2").standard_normal(376)
    pair("det-loss-explosion", rows(loss=ex, learning_rate=np.full(400, 1.0)), rows(loss=one))
    # softmax before cross-entropy: the loss stalls at log(1 + (C-1)/e) = 1.46 for 10 classes
    floor = 1.46 + (2.30 - 1.46) * np.exp(-np.arange(400) / 60) + 0.01 * rng("sm").standard_normal(400)
    pair("det-loss-softmax-floor", rows(loss=floor), rows(loss=decay(400, 2.3, 0.3, r=rng("smq"))))
    CONFIGS["det-loss-softmax-floor"] = ({"num_classes": 10}, {"num_classes": 10})

    # spikes and grad norm
    sp = decay(400, r=rng("sp"))
    for i in (120, 220, 320):
        sp[i] *= 4.0
    pair("det-loss-spikes", rows(loss=sp), rows(loss=one))
    gh = 1.0 + 0.3 * np.abs(rng("gh").standard_normal(400)); gh[100:300] = 15 + 30 * np.abs(rng("gh2").standard_normal(200))
    pair("det-gradnorm-high", rows(loss=h["loss"], grad_norm=gh), rows(**h))
    gs = h["grad_norm"].copy(); gs[150] = 812.0; gs[260] = 240.0
    gq = h["grad_norm"].copy(); gq[150] = 9.0
    pair("det-gradnorm-spikes", rows(loss=h["loss"], grad_norm=gs), rows(loss=h["loss"], grad_norm=gq))
    gz = np.zeros(400)
    grpo_gn = 0.05 + 0.02 * np.abs(rng("gz").standard_normal(400)); grpo_gn[::25] = 0.0  # occasional 0: zero-advantage skip
    pair("det-gradnorm-zero", rows(loss=flat, grad_norm=gz), rows(loss=h["loss"], grad_norm=grpo_gn))
    grow = np.exp(np.linspace(0, 4, 400)) * (1 + 0.05 * rng("grow").standard_normal(400))
    pair("det-gradnorm-growing", rows(loss=h["loss"], grad_norm=grow), rows(**h))
    ramp = np.minimum(0.5 * np.exp(np.linspace(0, 8, 400)), 35.0) * (1 + 0.1 * rng("ramp").standard_normal(400))
    mild = np.linspace(0.8, 3.2, 400) * (1 + 0.1 * rng("mild").standard_normal(400))  # a few-fold rise is normal
    pair("det-gradnorm-ramp", rows(loss=h["loss"], grad_norm=ramp), rows(loss=h["loss"], grad_norm=mild))
    van = 1e-6 * (1 + np.abs(rng("van").standard_normal(400)))
    pair("det-gradnorm-vanishing", rows(loss=flat, grad_norm=van), rows(**h))

    # learning rate
    lz = np.zeros(400)
    pair("det-lr-zero", rows(loss=flat, learning_rate=lz), rows(**h))
    lc = lr_schedule(400, warmup=10); lc[40:] = 1e-9
    pair("det-lr-collapse", rows(loss=h["loss"], learning_rate=lc), rows(**h))
    const = np.full(400, 3e-4)
    pair("det-lr-flat-scheduled", rows(loss=h["loss"], learning_rate=const), rows(loss=h["loss"], learning_rate=const))
    CONFIGS["det-lr-flat-scheduled"] = ({"lr_scheduler_type": "cosine", "warmup_steps": 50}, {"lr_scheduler_type": "constant"})
    nw = decay(400, r=rng("nw")); nw[5:12] *= 3.0
    pair("det-lr-no-warmup-spike", rows(loss=nw, learning_rate=np.full(400, 1e-3)), rows(**h))
    pw_lr = lr_schedule(400, warmup=100)
    pw = np.concatenate([decay(100, 2.3, 1.2, tau=0.5, r=rng("pw")), 1.25 + 0.05 * np.linspace(0, 1, 300) + 0.01 * rng("pw2").standard_normal(300)])
    pair("det-post-warmup-plateau", rows(loss=pw, learning_rate=pw_lr), rows(loss=decay(400, r=rng("pwq")), learning_rate=pw_lr))

    # loss scale
    scale_bad = 65536.0 / 2.0 ** np.minimum(np.arange(400) // 20, 18)
    scale_ok = np.full(400, 65536.0); scale_ok[:6] = 65536.0 * 2.0 ** -np.arange(6)  # early calibration back-offs
    scale_ok[6:] = 2048.0
    pair("det-loss-scale-collapse", rows(loss=h["loss"], loss_scale=scale_bad), rows(loss=h["loss"], loss_scale=scale_ok))
    # overflow lines: written as text logs
    folder = ROOT / "det-overflow-lines"
    folder.mkdir(parents=True, exist_ok=True)
    fire_lines, quiet_lines = [], []
    s = 65536.0
    for step in range(1, 301):
        if step <= 8:
            fire_lines.append(f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {s:.0f}, reducing to {s / 2:.0f}")
            quiet_lines.append(f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {s:.0f}, reducing to {s / 2:.0f}")
            s /= 2
        elif step % 15 == 0:
            fire_lines.append(f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {s:.0f}, reducing to {s / 2:.0f}")
            s = max(s / 2, 1.0)
        fire_lines.append(f"{{'loss': {2.3 * math.exp(-step / 120) + 0.4:.4f}, 'learning_rate': 0.0002, 'epoch': {step / 300:.3f}}}")
        quiet_lines.append(f"{{'loss': {2.3 * math.exp(-step / 120) + 0.4:.4f}, 'learning_rate': 0.0002, 'epoch': {step / 300:.3f}}}")
    (folder / "fire.log").write_text("\n".join(fire_lines) + "\n")
    (folder / "quiet.log").write_text("\n".join(quiet_lines) + "\n")

    # generalisation
    train = decay(400, 2.0, 0.1, r=rng("of"))
    ev_over = np.array([1.9, 1.2, 0.9, 0.8, 0.82, 0.9, 1.0, 1.1, 1.25, 1.4])
    ev_ok = decay(10, 2.0, 0.3, r=rng("ofq"), noise=0.01)
    pair("det-overfit", rows(loss=train) + eval_rows(40, ev_over), rows(loss=train) + eval_rows(40, ev_ok))
    pair(
        "det-metric-zero",
        rows(loss=h["loss"]) + eval_rows(40, np.zeros(10), "eval_map"),
        rows(loss=h["loss"]) + eval_rows(40, np.linspace(0.05, 0.42, 10), "eval_map"),
    )
    pair(
        "det-majority-collapse",
        rows(loss=h["loss"]) + [dict(a, eval_accuracy=0.9) for a in eval_rows(40, np.full(10, 0.0), "eval_macro_f1")],
        rows(loss=h["loss"]) + [dict(a, eval_accuracy=0.9) for a in eval_rows(40, np.linspace(0.3, 0.8, 10), "eval_macro_f1")],
    )

    pair(
        "det-macro-f1-gap",
        rows(loss=h["loss"]) + [dict(a, eval_accuracy=0.97) for a in eval_rows(40, np.full(10, 0.49), "eval_macro_f1")],
        rows(loss=h["loss"]) + [dict(a, eval_accuracy=0.9) for a in eval_rows(40, np.linspace(0.5, 0.86, 10), "eval_macro_f1")],
    )

    # GRPO
    n = 60
    g = rng("grpo")
    rew_ok = np.clip(np.linspace(0.02, 0.6, n) + 0.05 * g.standard_normal(n), 0, 1)
    std_ok = 0.2 + 0.05 * np.abs(g.standard_normal(n))
    ent_ok = np.linspace(0.5, 0.2, n)
    kl_ok = np.linspace(0.0, 0.3, n)
    base_ok = dict(reward=rew_ok, reward_std=std_ok, entropy=ent_ok, kl=kl_ok)
    pair("det-grpo-reward-zero", rows(reward=np.zeros(n), reward_std=np.zeros(n), kl=kl_ok), rows(**base_ok))
    pair("det-grpo-reward-std-zero", rows(reward=rew_ok, reward_std=np.where(np.arange(n) % 10 == 0, 0.1, 0.0)), rows(**base_ok))
    pair("det-grpo-frac-zero-std", rows(reward=rew_ok, frac_reward_zero_std=np.full(n, 0.95)), rows(reward=rew_ok, frac_reward_zero_std=np.full(n, 0.3)))
    pair("det-grpo-entropy-collapse", rows(reward=rew_ok, entropy=np.concatenate([np.linspace(0.5, 0.05, n // 2), np.full(n - n // 2, 0.004)])), rows(**base_ok))
    pair("det-grpo-kl-high", rows(reward=rew_ok, kl=np.linspace(0.1, 6.0, n)), rows(**base_ok))
    pair("det-grpo-kl-climbing", rows(reward=rew_ok, kl=np.exp(np.linspace(-6, 0.5, n))), rows(**base_ok))
    pair("det-grpo-clip-ratio", rows(reward=rew_ok, clip_ratio=np.full(n, 0.45)), rows(reward=rew_ok, clip_ratio=np.full(n, 0.05)))
    pair(
        "det-grpo-completions-clipped",
        rows(reward=rew_ok, **{"completions/clipped_ratio": np.linspace(0.5, 1.0, n)}),
        rows(reward=rew_ok, **{"completions/clipped_ratio": np.full(n, 0.1)}),
    )
    pair(
        "det-grpo-length-climbing",
        rows(reward=rew_ok, **{"completions/mean_length": np.linspace(180, 1024, n)}),
        rows(reward=rew_ok, **{"completions/mean_length": 200 + 10 * g.standard_normal(n)}),
    )
    pair("det-grpo-is-ratio", rows(reward=rew_ok, is_ratio_min=np.linspace(0.5, 0.0, n) ** 3), rows(reward=rew_ok, is_ratio_min=np.full(n, 0.6)))
    pair("det-grpo-logp-diff", rows(reward=rew_ok, logp_diff=np.linspace(0.05, 3.0, n)), rows(reward=rew_ok, logp_diff=np.full(n, 0.03)))

    # DPO
    m = 200
    d = rng("dpo")
    dpo_ok = {
        "loss": 0.693 * np.exp(-np.arange(m) / 120) + 0.25,
        "rewards/margins": np.linspace(0, 2.5, m) + 0.1 * d.standard_normal(m),
        "rewards/accuracies": np.clip(np.linspace(0.5, 0.85, m) + 0.03 * d.standard_normal(m), 0, 1),
        "logps/chosen": -250 - np.linspace(0, 8, m),
        "logps/rejected": -260 - np.linspace(0, 40, m),
    }
    stuck = dict(dpo_ok, loss=0.6931 + 0.002 * d.standard_normal(m), **{"rewards/margins": 0.01 * d.standard_normal(m)})
    pair("det-dpo-loss-stuck", rows(**stuck), rows(**dpo_ok))
    pair("det-dpo-margins-flat", rows(**stuck), rows(**dpo_ok))
    pair("det-dpo-accuracies-chance", rows(**dict(stuck, **{"rewards/accuracies": 0.5 + 0.03 * d.standard_normal(m)})), rows(**dpo_ok))
    collapse = dict(stuck, **{"logps/chosen": -250 - np.linspace(0, 120, m), "logps/rejected": -260 - np.linspace(0, 121, m)})
    pair("det-dpo-logps-collapse", rows(**collapse), rows(**dpo_ok))

    # PPO / SB3 (the quiet runs carry the benign NaN explained variance and a critic loss that never hits 0)
    k = 100
    p = rng("ppo")
    ppo_ok = {
        "approx_kl": 0.01 + 0.005 * np.abs(p.standard_normal(k)),
        "clip_fraction": 0.1 + 0.02 * p.standard_normal(k),
        "explained_variance": np.where(np.arange(k) < 5, np.nan, np.linspace(0.1, 0.9, k)),
        "value_loss": 5 + np.abs(p.standard_normal(k)),
        "episode_reward": np.linspace(-200, 150, k),
    }
    pair("det-ppo-approx-kl", rows(**dict(ppo_ok, approx_kl=np.linspace(0.01, 2.0, k))), rows(**ppo_ok))
    pair("det-ppo-clip-fraction", rows(**dict(ppo_ok, clip_fraction=np.full(k, 0.55))), rows(**ppo_ok))
    # a critic that explains nothing while the return does not improve (with a return that climbs,
    # a weak critic is not the problem)
    pair("det-ppo-explained-variance", rows(**dict(ppo_ok, explained_variance=-0.5 + 0.1 * p.standard_normal(k),
                                                   episode_reward=-180 + 10 * p.standard_normal(k))), rows(**ppo_ok))

    # SB3 runs in SB3's own CSV: A2C at lr 1e-7 against its default 7e-4; a DQN whose Huber TD loss sits
    # in the hundreds (rewards x100) against one that stays under 1
    steps = np.arange(1, 61) * 200
    sb3 = {"time/total_timesteps": steps, "time/fps": np.full(60, 300.0), "rollout/ep_rew_mean": 20 + np.sin(np.arange(60)),
           "train/value_loss": 5 + np.abs(p.standard_normal(60)), "train/policy_loss": 0.1 * p.standard_normal(60)}
    write_sb3_progress("det-lr-below-rl-range", "fire", dict(sb3, **{"train/learning_rate": np.full(60, 1e-7)}))
    write_sb3_progress("det-lr-below-rl-range", "quiet", dict(sb3, **{"train/learning_rate": np.full(60, 7e-4)}))
    dqn = {"time/total_timesteps": steps, "time/fps": np.full(60, 500.0), "rollout/ep_rew_mean": np.linspace(1400, 960, 60),
           "rollout/exploration_rate": np.maximum(0.05, 1 - steps / 3000), "train/learning_rate": np.full(60, 1e-3)}
    write_sb3_progress("det-dqn-td-loss-large", "fire", dict(dqn, **{"train/loss": 100 + 150 * np.abs(p.standard_normal(60))}))
    write_sb3_progress("det-dqn-td-loss-large", "quiet", dict(dqn, **{"train/loss": 0.05 + 0.2 * np.abs(p.standard_normal(60))}))

    # systems
    tp_ok = 1200 + 20 * rng("tp").standard_normal(400)
    pair("det-throughput-drop", rows(loss=h["loss"], throughput=np.linspace(1200, 500, 400)), rows(loss=h["loss"], throughput=tp_ok))
    mem_ok = 20.0 + 0.05 * rng("mem").standard_normal(400)
    pair("det-memory-creep", rows(loss=h["loss"], memory=np.linspace(20, 70, 400)), rows(loss=h["loss"], memory=mem_ok))
    pair("det-dead-activations", rows(loss=h["loss"], dead_fraction=np.linspace(0.05, 0.7, 400)), rows(loss=h["loss"], dead_fraction=np.full(400, 0.08)))
    pair("det-dead-activations-high", rows(loss=h["loss"], dead_fraction=np.full(400, 0.86)), rows(loss=h["loss"], dead_fraction=np.full(400, 0.08)))
    pair("det-update-ratio", rows(loss=h["loss"], update_ratio=np.full(400, 0.05)), rows(loss=h["loss"], update_ratio=np.full(400, 0.0012)))

    levels_and_relations(pair, CONFIGS)

    for det, (fire, quiet) in F.items():
        if fire is not None:  # None: written in another format by the pair's own code
            write(det, "fire", fire)
        write(det, "quiet", quiet)
    for det, (fire_cfg, quiet_cfg) in CONFIGS.items():
        (ROOT / det / "fire.config.json").write_text(json.dumps(fire_cfg) + "\n")
        (ROOT / det / "quiet.config.json").write_text(json.dumps(quiet_cfg) + "\n")
    print(f"wrote fixtures for {len(F) + 1} detectors under {ROOT}")


def levels_and_relations(pair, CONFIGS) -> None:
    """Single-row level rules, the arithmetic of saturated losses, and relations between metrics.
    Short logs on purpose: these rules must judge a one-row or three-row log as a person would."""
    n = 300
    h = healthy("levels", n)
    acc_ok = np.clip(np.linspace(0.3, 0.92, 25) + 0.01 * rng("acc").standard_normal(25), 0, 1)
    loss_ok = decay(25, 2.3, 0.25, r=rng("accl"))
    # a Keras run whose loss is 4e23 (one row), against a healthy summed loss in the thousands
    pair("det-loss-absurd", [{"epoch": 1, "loss": 4.2e23, "accuracy": 0.1}],
         rows(loss=decay(140, 8585.0, 364.0, r=rng("sum"))))
    # saturated one-hot outputs: loss = clamp x (1 - accuracy)
    acc_stuck = np.round(0.1 + 0.002 * rng("ks").standard_normal(25), 4)
    pair("det-loss-saturated-keras", rows(loss=16.1181 * (1 - acc_stuck), accuracy=acc_stuck), rows(loss=loss_ok, accuracy=acc_ok))
    pair("det-loss-saturated-fltmin", rows(loss=[87.3365, 87.3365]), rows(loss=loss_ok, accuracy=acc_ok))
    acc_half = np.round(0.5 + 0.004 * rng("bce").standard_normal(10), 4)
    pair("det-loss-bce-clamp", rows(loss=100.0 * (1 - acc_half), accuracy=acc_half),
         rows(loss=decay(10, 0.69, 0.3, r=rng("bceq")), accuracy=np.linspace(0.55, 0.86, 10)))
    # a loss pinned at exactly 0, or at one value to every digit, against healthy short logs
    # Adam-type default optimizer (HF Trainer keys) at lr 0.05: a plateau far above a healthy run;
    # quiet: SGD at 0.1 in a log no framework claims (an ordinary CNN recipe)
    hf = rows(loss=decay(30, 3.5, 2.6, r=rng("lrhi")), learning_rate=np.full(30, 0.05),
              grad_norm=0.3 + 0.05 * rng("lrg").standard_normal(30))
    write_trainer_state("det-lr-above-adaptive-range", "fire", hf)
    pair("det-lr-above-adaptive-range", None,
         rows(loss=decay(30, 2.3, 0.4, r=rng("sgd")), learning_rate=np.full(30, 0.1)))
    # softmax applied twice on 5 classes: 90% accurate, yet the loss sits on log(1 + 4/e) = 0.930;
    # quiet: the same accuracy with a proper loss that goes well below it
    fl = math.log(1 + 4 / math.e)
    at_floor = fl + (math.log(5) - fl) * np.exp(-np.arange(60) / 8.0) + np.abs(0.01 * rng("flr").standard_normal(60))
    acc_hi = np.linspace(0.86, 0.93, 6)
    pair("det-accurate-at-softmax-floor",
         rows(loss=at_floor) + eval_rows(10, acc_hi, "eval_accuracy"),
         rows(loss=decay(60, math.log(5), 0.25, r=rng("flq"))) + eval_rows(10, acc_hi, "eval_accuracy"))
    # a loss that jumps 3.5x in its first steps and then recovers, against a healthy start
    blow = decay(80, 4.0, 1.2, r=rng("blow"))
    blow[2:6] = [14.0, 11.0, 8.0, 6.0]
    pair("det-loss-early-blowup", rows(loss=blow), rows(loss=decay(80, 4.0, 1.2, r=rng("blowq"))))
    # DPO at lr 1e-2 against DPO at 5e-7
    dpo = {"loss": 0.6931 + 0.05 * rng("dpo").standard_normal(30), "rewards/margins": 0.1 * rng("dpm").standard_normal(30)}
    pair("det-dpo-lr-high", rows(**dpo, learning_rate=np.full(30, 1e-2)),
         rows(loss=decay(30, 0.6931, 0.55, r=rng("dpoq")), learning_rate=np.full(30, 5e-7),
              **{"rewards/margins": np.linspace(0.0, 0.3, 30)}))
    pair("det-loss-zero", rows(loss=np.zeros(5), learning_rate=np.linspace(1e-5, 5e-5, 5)),
         rows(loss=decay(5, 1.2, 0.8, r=rng("zq")), learning_rate=np.linspace(1e-5, 5e-5, 5)))
    pair("det-loss-pinned", rows(loss=np.ones(5), learning_rate=np.linspace(1.2e-5, 2.1e-5, 5)),
         rows(loss=np.round(decay(5, 1.8, 1.6, r=rng("pq")), 4), learning_rate=np.linspace(1.2e-5, 2.1e-5, 5)))
    # DPO: every log-prob exactly 0 (nothing scored) against the ordinary first step (ln 2, margin 0)
    pair("det-dpo-logps-zero",
         [{"step": 1, "loss": 0.6931, "rewards/margins": 0.0, "rewards/accuracies": 0.0, "logps/chosen": 0.0, "logps/rejected": 0.0}],
         [{"step": 1, "loss": 0.6931, "rewards/margins": 0.0, "rewards/accuracies": 0.0, "logps/chosen": -251.3, "logps/rejected": -263.9}])
    # the same eval loss at every evaluation, against one that follows training
    ev_ok = decay(10, 2.2, 0.5, r=rng("frz"), noise=0.01)
    pair("det-eval-frozen", rows(**h) + eval_rows(30, np.full(10, 2.302585)), rows(**h) + eval_rows(30, ev_ok))
    # train loss N x eval loss with N-step accumulation, against the divided twin
    ev = decay(10, 2.2, 0.5, r=rng("acc8"), noise=0.01)
    train_n = np.repeat(ev * 8.0, 30) * (1 + 0.03 * rng("acc8t").standard_normal(n))
    train_1 = np.repeat(ev * 1.05, 30) * (1 + 0.03 * rng("acc1t").standard_normal(n))
    pair("det-train-eval-accum", rows(loss=train_n) + eval_rows(30, ev), rows(loss=train_1) + eval_rows(30, ev))
    CONFIGS["det-train-eval-accum"] = ({"gradient_accumulation_steps": 8}, {"gradient_accumulation_steps": 8})
    # eval accuracy at chance while training learns, against one that follows training
    train = decay(n, 2.3, 0.3, r=rng("ch"))
    chance_acc = 0.1 + 0.004 * rng("cha").standard_normal(10)
    pair("det-eval-chance", rows(loss=train) + eval_rows(30, chance_acc, "eval_accuracy"),
         rows(loss=train) + eval_rows(30, np.linspace(0.3, 0.9, 10), "eval_accuracy"))
    CONFIGS["det-eval-chance"] = ({"num_classes": 10}, {"num_classes": 10})
    # WER getting worse (three evaluations, no train loss logged), against WER improving
    pair("det-eval-error-rising", eval_rows(500, [0.45, 0.52, 0.61], "eval_wer"), eval_rows(500, [0.61, 0.52, 0.47, 0.45], "eval_wer"))
    # eval loss climbing while eval accuracy holds, against both improving
    ev_up = np.array([1.0, 0.7, 0.6, 0.61, 0.66, 0.72, 0.8, 0.87, 0.93, 1.0])
    acc_hold = np.array([0.6, 0.75, 0.8, 0.81, 0.8, 0.81, 0.8, 0.81, 0.8, 0.81])
    both_ok = [dict(e, eval_accuracy=float(a)) for e, a in zip(eval_rows(30, ev_ok), np.linspace(0.5, 0.85, 10))]
    pair("det-eval-loss-rising-acc-holds",
         rows(**h) + [dict(e, eval_accuracy=float(a)) for e, a in zip(eval_rows(30, ev_up), acc_hold)],
         rows(**h) + both_ok)
    # the train loss steps down once, right after the first evaluation (left in eval mode),
    # against the healthy staircase that steps at every epoch's evaluation
    base = decay(n, 2.3, 0.8, r=rng("sh"))
    once = base.copy(); once[100:] *= 0.7
    stairs = base.copy()
    for k in (100, 200):
        stairs[k:] *= 0.85
    pair("det-loss-shift-after-eval", rows(loss=once) + eval_rows(100, [1.9, 1.3, 1.1]),
         rows(loss=stairs) + eval_rows(100, [1.9, 1.3, 1.1]))
    # WER at 100% (fairseq logs percent; one evaluation), against a WER that improves
    pair("det-eval-error-max", [{"epoch": 30, "valid_loss": 726.9, "valid_wer": 100.0, "train_loss": 671.8}],
         eval_rows(500, [64.2, 41.7, 30.3], "eval_wer"))
    # eval accuracy peaks, then falls while the training loss keeps falling, against a plateau
    m = 250
    tr = decay(m, 0.69, 0.3, r=rng("eaf"))
    peak = np.concatenate([np.linspace(0.5, 0.77, 150), np.linspace(0.77, 0.65, 100)]) + 0.015 * rng("eaf2").standard_normal(m)
    plateau = np.minimum(np.linspace(0.5, 0.9, m), 0.77) + 0.015 * rng("eaf3").standard_normal(m)
    pair("det-eval-accuracy-falling", rows(loss=tr, eval_accuracy=peak), rows(loss=tr, eval_accuracy=plateau))
    # a smooth LM loss with two 35% jumps that recover, against the same loss with only its noise
    lm = decay(2000, 10.9, 2.2, tau=0.15, r=rng("jmp"), noise=0.004)
    jumps = lm.copy()
    for at in (900, 1500):
        jumps[at:at + 30] *= 1.35 * np.exp(-np.arange(30) / 10.0) + (1 - np.exp(-np.arange(30) / 10.0))
    pair("det-loss-jumps", rows(loss=jumps), rows(loss=lm))
    # a loss still falling in a straight line at the last step (tiny LR), against a healthy convex curve
    lin = 2.30 - 0.5 * np.arange(n) / n + 0.01 * rng("lin").standard_normal(n)
    pair("det-loss-still-falling", rows(loss=lin, learning_rate=lr_schedule(n, peak=1e-6, warmup=10)), rows(**healthy("linq", n)))
    # eval accuracy frozen at one value (the majority share) while training still learns,
    # against an eval accuracy that moves with training
    tr15 = decay(15, 1.0, 0.6, r=rng("stk"))
    frozen_acc = [0.7202, 0.7202, 0.7198, 0.7198] + [0.7188] * 11
    pair("det-eval-accuracy-stuck", rows(loss=tr15, eval_accuracy=frozen_acc),
         rows(loss=tr15, eval_accuracy=np.round(np.linspace(0.62, 0.81, 15) + 0.004 * rng("stkq").standard_normal(15), 4)))
    # a fine-tune that jumps to 4x its starting loss and stays there, against one that dips and recovers
    pair("det-loss-climbs", rows(loss=[1.593, 1.406, 3.316, 6.437, 5.478, 4.857, 4.874, 4.604]),
         rows(loss=[1.593, 1.406, 1.52, 1.31, 1.28, 1.22, 1.25, 1.19]))
    # an RL agent that never reaches the goal (return exactly 0) while its losses fall, against one that learns
    k = 120
    q_loss = decay(k, 0.05, 1e-7, r=rng("rlz"))
    pair("det-rl-reward-zero", rows(loss=q_loss, episode_reward=np.zeros(k)),
         rows(loss=q_loss, episode_reward=np.concatenate([np.zeros(8), np.linspace(0.02, 0.7, k - 8)])))
    # padding in the loss mean: the loss scales with the real tokens of each batch
    real = rng("tok").integers(2000, 8000, n).astype(float)
    per_tok = decay(n, 3.0, 1.2, r=rng("tokl"), noise=0.01)
    pair("det-loss-tracks-tokens", rows(loss=per_tok * real / 8192.0, ntokens=real), rows(loss=per_tok, ntokens=real))


if __name__ == "__main__":
    main()
