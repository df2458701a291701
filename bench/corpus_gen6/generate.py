"""Generate corpus_gen6: small, really-trained runs, healthy and with real injected bugs.

Usage: /work/main/.venv/bin/python bench/corpus_gen6/generate.py [name-substring ...]
Each run's label.json is written from its spec BEFORE the run is trained.
"""
import contextlib, io, json, os, random, shutil, sys, time, traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MLFLOW_ENABLE_ASYNC_LOGGING", "false")
os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")

import numpy as np
import torch

torch.set_num_threads(1)

from common import Log
import tasks as T

RUNS = HERE / "runs"


def H(name, runner, model, fmt, seed, desc, **kw):
    return dict(name=name, runner=runner, model=model, format=fmt, seed=seed, healthy=True, causes=[],
                fault="healthy: " + desc, **kw)


def B(name, runner, model, fmt, seed, causes, fault, **kw):
    return dict(name=name, runner=runner, model=model, format=fmt, seed=seed, healthy=False, causes=causes,
                fault=fault, **kw)


SPECS = [
    # ------------------------------------------------------------------ healthy
    H("seg_unet_adamw", "seg", "unet-seg", "printed_keras", 601, "U-Net segmenter on drawn shapes, AdamW 2e-3, flips applied to image and mask, 10 epochs",
      opt="adamw", lr=2e-3, epochs=10, bs=32),
    H("seg_unet_sgd_lightning", "seg", "unet-seg", "lightning_csv", 602, "U-Net segmenter, SGD momentum 0.9 lr 0.05, 10 epochs",
      opt="sgd", lr=0.05, epochs=10, bs=32),
    H("det_head_adamw", "det", "det-cnn", "printed_logging", 603, "tiny detector (box L1 + class CE), AdamW 1e-3, 12 epochs",
      opt="adamw", lr=1e-3, epochs=12, bs=32),
    H("forecast_lstm_adamw", "forecast", "lstm-forecast", "csv", 604, "LSTM forecaster, chronological split, AdamW 3e-3, clip 1.0, 10 epochs",
      opt="adamw", lr=3e-3, epochs=10, bs=32, clip=1.0),
    H("forecast_lstm_batch4", "forecast", "lstm-forecast", "printed_tqdm", 605, "noisy small-batch LSTM forecaster: batch 4, AdamW 3e-4, 4 epochs",
      opt="adamw", lr=3e-4, epochs=4, bs=4, n_train=600, log_every=10),
    H("stateful_lstm_tbptt", "stateful", "lstm-forecast-stateful", "jsonl", 606, "stateful LSTM, truncated BPTT with detached hidden state, Adam 3e-3, 3 epochs",
      opt="adam", lr=3e-3, epochs=3, T=24000),
    H("vae_mlp", "vae", "vae-mlp", "jsonl", 607, "MLP VAE on shape masks, recon and KL both per-sample sums, AdamW 1e-3, 15 epochs",
      opt="adamw", lr=1e-3, epochs=15, bs=64),
    H("gan_moons", "gan", "gan-2d", "printed_it", 608, "GAN on two moons, Adam 1e-3 betas (0.5, 0.999) for G and D, 2000 iterations",
      lr=1e-3, iters=2000),
    H("hf_gpt2_charlm", "hf_lm", "gpt2-char-lm", "hf_state", 609, "tiny GPT-2 char LM, lr 2e-3, warmup 20, cosine, 3 epochs",
      lr=2e-3, warmup=20, sched="cosine", epochs=3, bs=16),
    H("hf_llama_short", "hf_lm", "llama-char-lm", "hf_state", 610, "short run: tiny LLaMA char LM, 40 steps, lr 2e-3, warmup 10, linear decay",
      lr=2e-3, warmup=10, sched="linear", max_steps=40, bs=16, log_every=4),
    H("hf_bert_sentiment", "hf_cls", "bert-cls", "hf_state", 611, "tiny BERT sentiment classifier, lr 1e-3, warmup 20, linear decay, 4 epochs",
      lr=1e-3, warmup=20, sched="linear", epochs=4, bs=16),
    H("multilabel_mlp_lightning", "multilabel", "mlp-multilabel", "lightning_csv", 612, "multi-label MLP (6 labels), BCEWithLogits, AdamW 2e-3, 15 epochs",
      opt="adamw", lr=2e-3, epochs=15, bs=64),
    H("multilabel_noisy_plateau", "multilabel", "mlp-multilabel", "mlflow", 613, "multi-label MLP with heavy label noise: plateau after real learning, AdamW 1e-3, 25 epochs",
      opt="adamw", lr=1e-3, epochs=25, bs=64, label_noise=0.9),
    H("distill_student", "distill", "kd-student-mlp", "printed_table", 614, "distillation student, T=4 on both teacher and student, alpha 0.7, AdamW 3e-3, 12 epochs",
      opt="adamw", lr=3e-3, epochs=12, bs=64),
    H("reinforce_corridor", "reinforce", "reinforce-mlp", "printed_dict", 615, "REINFORCE on a 10-cell corridor, returns discounted and centred, Adam 3e-3, 600 episodes",
      lr=3e-3, episodes=600),
    H("dqn_grid", "dqn", "dqn-mlp", "mlflow", 616, "DQN on a 5x5 grid, target sync every 100 steps, epsilon 1->0.05, Adam 1e-3, 6000 steps",
      lr=1e-3, steps=6000),
    H("cnn_bn_short", "shapes", "cnn-bn", "printed_pipe", 617, "short run: CNN+BN, SGD momentum 0.9 lr 0.02, 3 epochs (still improving at the end)",
      opt="sgd", lr=0.02, epochs=3, bs=32),
    H("resnet_finetune", "shapes", "resnet-small", "printed_batch", 618, "fine-tune (AdamW 1e-4) of a small ResNet pretrained on noisier shapes: starts low, improves a little",
      opt="adamw", lr=1e-4, epochs=5, bs=32, pretrain=True, noise=0.5),
    H("cnn_small_data_lightning", "shapes", "cnn-bn", "lightning_csv", 619, "CNN+BN on 400 noisy images, AdamW 1e-3, 25 epochs: val loss drifts up late while accuracy holds/creeps up",
      opt="adamw", lr=1e-3, epochs=25, bs=32, n=400, noise=0.45, log_every=5),
    H("charlm_transformer", "charlm", "tiny-transformer-lm", "printed_bracket", 620, "own causal transformer char LM, AdamW 2e-3, warmup 30 + cosine, 6 epochs (perplexity)",
      opt="adamw", lr=2e-3, sched="warmup_cos", warmup=30, epochs=6, bs=32),
    H("tfcls_padmask", "tfcls", "tiny-transformer-cls", "csv", 621, "tiny transformer encoder classifier with correct key-padding mask, AdamW 1e-3, warmup 50 + cosine, 6 epochs",
      opt="adamw", lr=1e-3, sched="warmup_cos", warmup=50, epochs=6, bs=32),
    H("dae_signals", "dae", "mlp-denoise-ae", "printed_keras", 622, "denoising MLP autoencoder on noisy sinusoids, AdamW 2e-3, 15 epochs",
      opt="adamw", lr=2e-3, epochs=15, bs=64),
    # ------------------------------------------------------------------ faulty
    B("seg_flip_image_only", "seg", "unet-seg", "printed_pipe", 631, ["DP-labels-misaligned"],
      "random horizontal flip applied to the image but not to its mask (augmentation bug)",
      opt="adamw", lr=2e-3, epochs=10, bs=32, bug="flip_image_only"),
    B("seg_iou_background", "seg", "unet-seg", "lightning_csv", 632, ["PB-loss-metric-mismatch", "S-verify-experiment"],
      "val IoU/Dice computed on the background (1-pred vs 1-mask) and reported as object IoU: metric high from the start",
      opt="adamw", lr=2e-3, epochs=10, bs=32, bug="iou_background"),
    B("det_boxes_shuffled", "det", "det-cnn", "mlflow", 633, ["DP-labels-misaligned"],
      "training boxes shuffled on their own (not with their images); classes stay aligned",
      opt="adamw", lr=1e-3, epochs=12, bs=32, bug="boxes_shuffled"),
    B("det_pixel_targets", "det", "det-cnn", "printed_bracket", 634, ["PB-output-target", "V3"],
      "box targets in pixels (0..16) while the box head ends in a sigmoid (0..1): box loss floors, IoU ~0",
      opt="adamw", lr=1e-3, epochs=10, bs=32, bug="pixel_targets"),
    B("forecast_overlap_split", "forecast", "lstm-forecast", "csv", 635, ["PB-leaky-split", "S-verify-experiment"],
      "stride-1 windows split at random into train/val: every val window overlaps training windows (leak)",
      opt="adamw", lr=3e-3, epochs=10, bs=32, clip=1.0, bug="overlap_split"),
    B("forecast_target_in_window", "forecast", "lstm-forecast", "printed_table", 660, ["DP-labels-misaligned", "S-verify-experiment"],
      "forecast targets sliced from the last 4 steps of the input window instead of the 4 steps after it: the model copies its input",
      opt="adamw", lr=3e-3, epochs=10, bs=32, clip=1.0, bug="target_in_window"),
    B("stateful_lstm_no_detach", "stateful", "lstm-forecast-stateful", "printed_logging", 636, ["S-inplace-autograd", "S-backward-twice"],
      "hidden state carried across batches without detach, backward(retain_graph=True) added to silence the error: step 2 dies (weights changed in place since the old graph was built)",
      opt="adam", lr=3e-3, epochs=3, T=24000, bug="no_detach"),
    B("stateful_lstm_carry_hidden", "stateful", "lstm-forecast-stateful", "printed_it", 659, ["S-backward-twice"],
      "hidden state carried across truncated-BPTT batches without detach(): the second backward() runs into the freed graph, run dies",
      opt="adam", lr=3e-3, epochs=3, T=24000, bug="no_detach_plain"),
    B("vae_kl_sum_recon_mean", "vae", "vae-mlp", "jsonl", 637, ["PB-multi-loss-weights", "PB-loss-metric-mismatch"],
      "VAE recon BCE averaged over pixels and batch, KL summed over latent dims and batch: posterior collapse (KL ~ 0)",
      opt="adamw", lr=1e-3, epochs=15, bs=64, bug="kl_sum_recon_mean"),
    B("vae_kl_sign", "vae", "vae-mlp", "printed_dict", 638, ["PB-multi-loss-weights", "O1"],
      "VAE loss = recon - KL (sign slip): KL is maximised and runs away",
      opt="adamw", lr=1e-3, epochs=10, bs=64, bug="kl_sign"),
    B("gan_g_detach", "gan", "gan-2d", "printed_pipe", 639, ["O3", "S-gan-d-wins"],
      "generator step scores fake.detach(): no gradient reaches G, D wins",
      lr=1e-3, iters=2000, bug="g_detach"),
    B("gan_opt_g_over_d", "gan", "gan-2d", "mlflow", 640, ["O2", "S-gan-d-wins"],
      "generator optimizer built over D.parameters() (copy-paste): G never updated, its step pushes D the wrong way",
      lr=1e-3, iters=2000, bug="opt_g_over_d"),
    B("hf_gpt2_npositions", "hf_lm", "gpt2-char-lm", "printed_hf", 641, ["S-embedding-index"],
      "GPT2Config(n_positions=32) with 64-character training blocks: position index out of range, run dies",
      lr=2e-3, warmup=20, sched="cosine", epochs=3, bs=16, n_positions=32),
    B("hf_gpt2_sgd_adam_lr", "hf_lm", "gpt2-char-lm", "hf_state", 642, ["S-lr-too-low", "PB-optimizer-defaults", "O7"],
      "optim='sgd' (plain SGD, no momentum) with the AdamW learning rate 2e-3 kept: the LM barely learns",
      lr=2e-3, warmup=20, sched="cosine", epochs=3, bs=16, optim="sgd"),
    B("hf_bert_label_key", "hf_cls", "bert-cls", "hf_state", 643, ["DP-labels-misaligned", "PB-data-inventory"],
      "training labels read with ex.get('label', 0) but the column is 'sentiment': every training label is 0",
      lr=1e-3, warmup=20, sched="linear", epochs=4, bs=16, bug="label_key"),
    B("hf_bert_batch256", "hf_cls", "bert-cls", "hf_state", 644, ["S-effective-batch-mismatch", "S-lr-too-low"],
      "per_device_train_batch_size=256 on 1000 examples (lr 1e-3 tuned for 16): 12 optimizer steps in 3 epochs",
      lr=1e-3, warmup=2, sched="linear", epochs=3, bs=256, log_every=1),
    B("multilabel_f1_argmax", "multilabel", "mlp-multilabel", "lightning_csv", 645, ["PB-loss-metric-mismatch", "S-verify-experiment"],
      "multi-label F1 computed from argmax (one label per sample): F1 capped while the loss falls",
      opt="adamw", lr=2e-3, epochs=15, bs=64, bug="f1_argmax"),
    B("multilabel_softmax_ce", "multilabel", "mlp-multilabel", "csv", 646, ["O14", "PB-loss-metric-mismatch"],
      "CrossEntropyLoss (softmax over labels) on multi-hot targets instead of BCEWithLogits",
      opt="adamw", lr=2e-3, epochs=15, bs=64, bug="softmax_ce_multihot"),
    B("distill_temp_student_only", "distill", "kd-student-mlp", "printed_table", 647, ["PB-output-scale", "PB-loss-metric-mismatch"],
      "distillation temperature 4 applied to the student only (teacher softmax at T=1): KD loss stays high",
      opt="adamw", lr=3e-3, epochs=12, bs=64, bug="temp_student_only"),
    B("distill_teacher_prefix", "distill", "kd-student-mlp", "jsonl", 648, ["C-strict-load"],
      "teacher checkpoint keys carry 'module.'; load_state_dict(strict=False) loads nothing: distils a random teacher",
      opt="adamw", lr=3e-3, epochs=12, bs=64, bug="teacher_prefix"),
    B("reinforce_sign_flip", "reinforce", "reinforce-mlp", "printed_dict", 649, ["O1", "PB-loss-metric-mismatch"],
      "REINFORCE loss written as +logp*advantage (minus sign dropped): return is minimised",
      lr=3e-3, episodes=600, bug="sign_flip"),
    B("dqn_eps_not_decayed", "dqn", "dqn-mlp", "printed_bracket", 650, ["O1", "S-plateau"],
      "epsilon decay result thrown away (decay(eps) instead of eps = decay(eps)): acts at random forever",
      lr=1e-3, steps=6000, bug="eps_local"),
    B("dqn_no_done_mask", "dqn", "dqn-mlp", "printed_logging", 651, ["O1"],
      "TD target ignores the done flag, gamma 1.0: bootstraps past episode ends, Q values overestimated (drift above the max return)",
      lr=1e-3, steps=6000, gamma=1.0, bug="no_done_mask"),
    B("cnn_overfit_batches", "shapes", "cnn-bn", "lightning_csv", 652, ["S-overfit"],
      "Trainer(overfit_batches=2) left in from a debugging session: every epoch trains on the same 2 batches (64 images), 60 epochs",
      opt="adamw", lr=1e-3, epochs=60, bs=32, overfit_batches=2, log_every=2),
    B("cnn_steplr_gamma10", "shapes", "cnn-bn", "printed_batch", 653, ["S-lr-too-high", "O8", "S-grad-explosion"],
      "StepLR(step_size=2, gamma=10) (meant 0.1): LR x10 every 2 epochs from SGD 0.02",
      opt="sgd", lr=0.02, sched="step_epoch", step_size=2, gamma=10, epochs=10, bs=32, log_every=10, epoch_lr=True),
    B("mlp_warmup_lambda_zero", "mlpcls", "mlp-cls", "jsonl", 654, ["O8", "S-plateau"],
      "LambdaLR warmup lambda returns 0 (meant 1) after its 50 warmup steps: LR is 0 for the rest of the run",
      opt="adamw", lr=1e-3, sched="warmup_typo", warmup=50, epochs=12, bs=32),
    B("resnet_freeze_all", "shapes", "resnet-small", "printed_tqdm", 655, ["O3"],
      "freeze loop meant for the backbone iterates model.parameters(): nothing requires grad, backward() raises",
      opt="adamw", lr=1e-3, epochs=5, bs=32, pretrain=True, bug="freeze_all"),
    B("dae_target_noisy", "dae", "mlp-denoise-ae", "csv", 656, ["PB-loss-metric-mismatch", "DP-labels-misaligned"],
      "denoising AE trained with the noisy input as its target (meant the clean signal): learns the identity",
      opt="adamw", lr=2e-3, epochs=15, bs=64, bug="target_noisy"),
    B("grucls_manual_no_sched", "grucls", "gru-cls", "lightning_csv", 657, ["O8", "S-lr-too-low"],
      "manual optimisation without lr_schedulers().step(): the 300-step linear warmup never advances, LR stays 1e-5",
      opt="adamw", lr=3e-3, sched="warmup_const", warmup=300, epochs=10, bs=32, bug="manual_no_sched"),
    B("tfcls_mask_inverted", "tfcls", "tiny-transformer-cls", "printed_keras", 658, ["O1", "S-plateau"],
      "HF-style attention_mask (1 = keep) passed as src_key_padding_mask (True = ignore): CLS attends only to padding",
      opt="adamw", lr=1e-3, sched="warmup_cos", warmup=50, epochs=6, bs=32, bug="mask_inverted"),
]


def seed_all(s):
    random.seed(s); np.random.seed(s); torch.manual_seed(s)


def label_of(sp):
    return {"healthy": sp["healthy"], "causes": sp["causes"], "fault": sp["fault"], "format": sp["format"],
            "model": sp["model"], "seed": sp["seed"]}


def pretrain(task, sp):
    """A 'pretrained checkpoint': the same architecture trained quietly on noisier shapes first."""
    rng = np.random.default_rng(sp["seed"] + 1000)
    src = T.ShapesCls(dict(model=sp["model"], n=1200, noise=0.9), rng)
    opt = torch.optim.AdamW(src.model.parameters(), lr=2e-3)
    dl = torch.utils.data.DataLoader(src.train_ds, batch_size=32, shuffle=True)
    for _ep in range(4):
        for b in dl:
            l, _ = src.loss(b); opt.zero_grad(); l.backward(); opt.step()
    task.model.load_state_dict(src.model.state_dict())


def run_one(sp):
    d = RUNS / sp["name"]
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (d / "label.json").write_text(json.dumps(label_of(sp), indent=2) + "\n")
    seed_all(sp["seed"])
    rng = np.random.default_rng(sp["seed"])
    g = torch.Generator().manual_seed(sp["seed"])
    fmt, r = sp["format"], sp["runner"]
    t0 = time.time()
    if r in ("hf_lm", "hf_cls"):
        import hf_tasks
        fn = hf_tasks.fit_hf_lm if r == "hf_lm" else hf_tasks.fit_hf_cls
        if fmt == "printed_hf":
            with open(d / "train.log", "w") as f, contextlib.redirect_stdout(f), contextlib.redirect_stderr(f):
                try:
                    fn(sp, str(d), rng)
                except Exception:
                    traceback.print_exc(file=f)
        else:
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                fn(sp, str(d), rng)
        return time.time() - t0
    if r in TASK_RUNNERS:
        task = T.TASKS[r](sp, rng)
        if sp.get("pretrain"):
            pretrain(task, sp)
    if fmt == "lightning_csv":
        import logging
        logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            T.fit_lightning(task, sp, d, g)
        return time.time() - t0
    log = Log(d, fmt, name=sp["name"])
    failed = False
    try:
        if r in TASK_RUNNERS:
            T.fit_plain(task, sp, log, g)
        elif r == "stateful":
            T.fit_stateful_lstm(sp, log, rng)
        elif r == "gan":
            T.fit_gan(sp, log, rng)
        elif r == "reinforce":
            T.fit_reinforce(sp, log, rng)
        elif r == "dqn":
            T.fit_dqn(sp, log, rng)
    except Exception:
        failed = True
        log.text("Traceback (most recent call last):\n" + "".join(traceback.format_exc().splitlines(True)[1:]))
    finally:
        log.close(failed)
    return time.time() - t0


TASK_RUNNERS = set(T.TASKS)


def main():
    sel = sys.argv[1:]
    RUNS.mkdir(exist_ok=True)
    times = {}
    for sp in SPECS:
        if sel and not any(s in sp["name"] for s in sel):
            continue
        dt = run_one(sp)
        times[sp["name"]] = round(dt, 1)
        print(f"{sp['name']:32s} {dt:6.1f}s", flush=True)
    print("total", round(sum(times.values()), 1), "s")


if __name__ == "__main__":
    main()
