"""Second labelled corpus: training runs made with the real libraries, written independently of
bench/corpus (no code shared with bench/corpus/generate.py), so that accuracy measured on it is
a held-out figure for knowledge that was tuned on bench/corpus.

Needs its own virtualenv (not the project's .venv; these libraries are large):

    python3 -m venv /work/genvenv
    /work/genvenv/bin/pip install torch==2.13.0            # first: the local CPU wheel
    /work/genvenv/bin/pip install transformers trl lightning tensorboard stable-baselines3 \
        gymnasium accelerate datasets numpy
    # made with transformers 5.23.0, trl 1.16.0, lightning 2.6.6, stable-baselines3 2.9.2,
    # gymnasium 1.4.0, tensorboard 2.21.0, datasets 5.2.0, accelerate 1.15.0

    /work/genvenv/bin/python bench/corpus_libs/generate.py [--only GLOB ...] [--list]

Runs offline: every model is built from a config (2 layers, 64 wide; character vocabulary) and
every data set is synthetic (bench/corpus_libs/synth.py). One thread, CPU; about 15 minutes for
all runs. Each run is a folder under runs/ holding what the library wrote (trainer_state.json +
config.json, Lightning's metrics.csv + hparams.yaml, progress.csv, a tb/ folder of event files,
a Keras-style training.csv, or a printed train.log) and a label.json:

    {"healthy": bool, "causes": [cause IDs from knowledge/causes, any of which is a right answer],
     "fault": what was injected, "format": log format, "model": architecture, "seed": int}

The label is written from the injected fault before the run is trained and never from triage's
output. Healthy runs use ordinary settings. Faults are real bugs in the training code or
config (see specs() below), not edited logs.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))


@dataclass
class Spec:
    name: str
    maker: str            # "module.function"
    seed: int
    fmt: str
    model: str
    fault: str = "healthy control"
    causes: list[str] = field(default_factory=list)
    kw: dict = field(default_factory=dict)

    @property
    def healthy(self) -> bool:
        return not self.causes


def H(name, maker, seed, fmt, model, note="", **kw) -> Spec:
    return Spec(name, maker, seed, fmt, model, "healthy control" + (f" ({note})" if note else ""), [], kw)


def F(name, maker, seed, fmt, model, fault, causes, **kw) -> Spec:
    return Spec(name, maker, seed, fmt, model, fault, list(causes), kw)


def faults(**kw):
    from make_plain import Faults

    return Faults(**kw)


# Tag conventions seen in SummaryWriter scripts.
TAGS = {
    "A": {"train_loss": "Loss/train", "val_loss": "Loss/val", "val_acc": "Accuracy/val", "lr": "LR"},
    "B": {"train_loss": "train/loss", "val_loss": "val/loss", "val_acc": "val/acc", "lr": "train/lr",
          "grad_norm": "train/grad_norm"},
    "C": {"train_loss": "loss", "val_loss": "val_loss", "val_acc": "val_accuracy"},
    "D": {"train_loss": "training_loss", "val_loss": "validation_loss", "lr": "learning_rate"},
    "E": {"train_loss": "Train/Loss", "val_loss": "Test/Loss", "val_acc": "Test/Accuracy"},
    "F": {"train_loss": "loss/train", "val_loss": "loss/val", "grad_scale": "amp/scale"},
}

LR_HIGH = ["S-lr-too-high", "O22", "PB-lr-range-test"]
LR_LOW = ["S-lr-too-low", "O7", "S-plateau", "PB-lr-range-test"]
NAN_ROW = ["S-bad-batch", "DP-corrupt-samples", "S-nan"]
SHUFFLED = ["DP-labels-misaligned", "DP-label-mapping", "PB-data-inventory", "S-plateau", "PB-schema-sanity"]
OVERFIT = ["S-overfit", "PB-param-budget"]
EVAL_MODE = ["O5", "V2"]
TINY_BATCH = ["S-effective-batch-mismatch", "S-gradnorm-unstable", "S-spike"]
STALE = ["O2", "S-plateau", "O1"]


def specs() -> list[Spec]:
    hf, trl_dpo, trl_grpo = "make_hf.causal_lm", "make_hf.dpo", "make_hf.grpo"
    cls, reg = "make_hf.seq_cls", "make_hf.regression"
    pl, pt, rl = "make_lightning.fit", "make_plain.train", "make_rl.fit"
    out = [
        # ---------------------------------------------------------------- HF Trainer
        H("hf-gpt2-lm-healthy-a", hf, 2101, "hf_state", "gpt2-lm", arch="gpt2"),
        H("hf-gpt2-lm-healthy-b", hf, 2102, "hf_state", "gpt2-lm", "lr 5e-4, linear decay", arch="gpt2",
          lr=5e-4, sched="linear", warmup=10),
        H("hf-llama-lm-healthy", hf, 2103, "hf_state", "llama-lm", arch="llama"),
        H("hf-llama-lm-stdout-healthy", hf, 2104, "hf_stdout", "llama-lm", "printed log", arch="llama",
          lr=2e-3, stdout=True),
        H("hf-bert-cls-healthy-a", cls, 2105, "hf_state", "bert-cls"),
        H("hf-bert-cls-healthy-b", cls, 2106, "hf_state", "bert-cls", "lr 1e-3, batch 64", lr=1e-3, batch=64),
        H("hf-mlp-reg-healthy", reg, 2107, "hf_state", "mlp-reg"),
        F("hf-gpt2-lm-lr-high", hf, 2111, "hf_state", "gpt2-lm",
          "AdamW lr 0.05 (50x the working 1e-3), constant, no warmup; grad clipping 1.0 kept",
          LR_HIGH + ["S-plateau", "S-warmup-short"], arch="gpt2", lr=0.05, warmup=0, sched="constant"),
        F("hf-llama-lm-lr-high-noclip", hf, 2112, "hf_state", "llama-lm",
          "AdamW lr 0.2, no warmup, max_grad_norm=0 (no clipping)",
          LR_HIGH + ["S-spike", "S-grad-clip-missing", "S-warmup-short", "S-plateau", "S-grad-explosion"],
          arch="llama", lr=0.2, warmup=0, sched="constant", max_grad_norm=0.0),
        F("hf-llama-lm-lr-tiny", hf, 2113, "hf_state", "llama-lm", "learning_rate 1e-6 (typo for 1e-3)",
          LR_LOW, arch="llama", lr=1e-6),
        F("hf-bert-cls-frozen-typo", cls, 2114, "hf_state", "bert-cls",
          "freeze-all-but-head filter misspelt ('classifer'): only LayerNorms train", STALE,
          train_only="classifer"),
        F("hf-bert-cls-labels-shuffled", cls, 2115, "hf_state", "bert-cls",
          "training labels permuted (texts and labels joined out of order)", SHUFFLED, shuffle_labels=True),
        F("hf-bert-cls-eval-on-train", cls, 2116, "hf_state", "bert-cls",
          "eval_dataset is the (small) training set", ["PB-leaky-split", "S-verify-experiment", "PB-team-split"],
          eval_on_train=True, n_train=200, steps=300),
        F("hf-bert-cls-overfit-tiny", cls, 2117, "hf_state", "bert-cls",
          "60 training examples, 400 steps, held-out eval", OVERFIT, n_train=60, steps=400, lr=1e-3),
        F("hf-llama-lm-pad-in-loss", hf, 2118, "hf_state", "llama-lm",
          "collator copies input_ids to labels without -100 on padding (pads scored)", ["L2", "O15"],
          arch="llama", mask_pad=False),
        F("hf-mlp-reg-inf-row", reg, 2119, "hf_state", "mlp-reg",
          "one training row has an inf feature (bad parse); NaN from then on", NAN_ROW, corrupt_row=1500),
        F("hf-bert-cls-batch2", cls, 2120, "hf_state", "bert-cls", "per_device_train_batch_size 2 at lr 1e-3",
          TINY_BATCH, batch=2, lr=1e-3, steps=300),
        F("hf-gpt2-lm-stdout-lr-high", hf, 2121, "hf_stdout", "gpt2-lm",
          "AdamW lr 0.08, no warmup, no clipping; printed log",
          LR_HIGH + ["S-spike", "S-grad-clip-missing", "S-warmup-short", "S-plateau", "S-grad-explosion"],
          arch="gpt2", lr=0.08, warmup=0, sched="constant", max_grad_norm=0.0, stdout=True),
        # ---------------------------------------------------------------- TRL DPO
        H("trl-dpo-healthy-a", trl_dpo, 2201, "hf_state", "gpt2-dpo"),
        H("trl-dpo-healthy-b", trl_dpo, 2202, "hf_state", "gpt2-dpo", "beta 0.3", beta=0.3),
        H("trl-dpo-stdout-healthy", trl_dpo, 2203, "hf_stdout", "gpt2-dpo", "printed log", stdout=True),
        F("trl-dpo-beta-tiny", trl_dpo, 2211, "hf_state", "gpt2-dpo", "beta 0.001 (margins cannot grow)", ["L9"],
          beta=0.001),
        F("trl-dpo-lr-high", trl_dpo, 2212, "hf_state", "gpt2-dpo", "lr 1e-2 (100x); both log-probs collapse",
          ["L9", "S-lr-too-high"], lr=1e-2),
        F("trl-dpo-noisy-pairs", trl_dpo, 2213, "hf_state", "gpt2-dpo",
          "45% of pairs have chosen and rejected swapped", ["L9", "PB-data-inventory"], swap_frac=0.45),
        # ---------------------------------------------------------------- TRL GRPO
        H("trl-grpo-healthy-a", trl_grpo, 2301, "hf_state", "gpt2-grpo"),
        H("trl-grpo-healthy-b", trl_grpo, 2302, "hf_state", "gpt2-grpo", "lr 5e-5", lr=5e-5),
        H("trl-grpo-stdout-healthy", trl_grpo, 2303, "hf_stdout", "gpt2-grpo", "printed log", stdout=True),
        F("trl-grpo-reward-tagged", trl_grpo, 2311, "hf_state", "gpt2-grpo",
          "reward parses <answer>..</answer> tags the model never writes: reward always 0",
          ["S-grpo-reward-zero", "S-reward-std-zero"], reward="tagged"),
        F("trl-grpo-reward-constant", trl_grpo, 2312, "hf_state", "gpt2-grpo",
          "reward check every completion passes: reward always 1, std 0", ["S-reward-std-zero"], reward="constant"),
        F("trl-grpo-kl-runaway", trl_grpo, 2313, "hf_state", "gpt2-grpo", "lr 5e-3 (50x) with beta 0.04",
          ["S-kl-diverged", "R2", "S-lr-too-high"], lr=5e-3),
        F("trl-grpo-length-bonus", trl_grpo, 2314, "hf_state", "gpt2-grpo",
          "reward adds 0.3 per character (max_completion_length 12), lr 5e-4: the policy learns to ramble",
          ["S-length-hacking", "S-completions-clipped", "S-kl-diverged", "R2"], reward="longer", max_completion=12,
          lr=5e-4),
        F("trl-grpo-temperature-low", trl_grpo, 2315, "hf_state", "gpt2-grpo",
          "sampling temperature 0.05: the 4 completions of a prompt are identical",
          ["S-entropy-collapse", "S-reward-std-zero"], temperature=0.05),
        # ---------------------------------------------------------------- Lightning CSVLogger
        H("pl-cnn-csv-healthy", pl, 2401, "lightning_csv", "cnn-bn", arch="cnn", task="images"),
        H("pl-lstm-csv-healthy", pl, 2402, "lightning_csv", "lstm-cls", arch="lstm", task="tokens", lr=3e-3),
        H("pl-mlp-csv-healthy", pl, 2403, "lightning_csv", "mlp-cls", arch="mlp", task="blobs", n_train=4000,
          epochs=6),
        H("pl-ae-csv-healthy", pl, 2404, "lightning_csv", "conv-ae", arch="ae", task="signals"),
        F("pl-lstm-csv-double-softmax", pl, 2411, "lightning_csv", "lstm-cls",
          "softmax applied to the logits before F.cross_entropy", ["O12"], arch="lstm", task="tokens", lr=3e-3,
          double_softmax=True),
        F("pl-mlp-csv-steplr-per-step", pl, 2412, "lightning_csv", "mlp-cls",
          "StepLR(step_size=5, gamma=0.5) meant per epoch, scheduled with interval='step'",
          ["O8", "S-lr-too-low", "S-plateau"], arch="mlp", task="blobs", step_lr_per_batch=True),
        F("pl-cnn-csv-val-train-mode", pl, 2413, "lightning_csv", "cnn-bn",
          "on_validation_model_eval overridden: validation runs in train mode (BN batch stats, dropout), "
          "val batch 8", EVAL_MODE, arch="cnn", task="images", keep_train_mode_in_val=True, val_batch=8),
        F("pl-ae-csv-sgd-lr-high", pl, 2414, "lightning_csv", "conv-ae", "SGD(momentum 0.9) lr 2.0, no clipping",
          ["S-lr-too-high", "S-nan", "S-grad-explosion", "S-grad-clip-missing", "O22"], arch="ae", task="signals",
          optimizer="sgd", lr=2.0),
        F("pl-cnn-csv-batch2", pl, 2415, "lightning_csv", "cnn-bn", "batch size 2 with BatchNorm",
          ["V7"] + TINY_BATCH, arch="cnn", task="images", batch=2, n_train=600, epochs=4),
        # ---------------------------------------------------------------- Lightning TensorBoardLogger
        H("pl-cnn-tb-healthy", pl, 2501, "tensorboard", "cnn-bn", arch="cnn", task="images", logger="tb"),
        H("pl-ae-tb-healthy", pl, 2502, "tensorboard", "conv-ae", arch="ae", task="signals", logger="tb"),
        F("pl-lstm-tb-overfit", pl, 2511, "tensorboard", "lstm-cls", "64 training sequences, 120 epochs",
          OVERFIT, arch="lstm", task="tokens", logger="tb", n_train=64, epochs=120, lr=3e-3),
        F("pl-cnn-tb-manual-no-zero-grad", pl, 2512, "tensorboard", "cnn-bn",
          "manual optimisation: opt.step() without opt.zero_grad()", ["O4"], arch="cnn", task="images",
          logger="tb", manual_no_zero_grad=True),
        F("pl-mlp-tb-weight-decay-high", pl, 2513, "tensorboard", "mlp-cls",
          "Adam(weight_decay=0.5): coupled L2 swamps the gradient", ["O6", "S-weight-decay-high", "S-plateau"],
          arch="mlp", task="blobs", logger="tb", weight_decay=0.5),
        # ---------------------------------------------------------------- plain PyTorch + SummaryWriter
        H("pt-gru-lm-tb-healthy", pt, 2601, "tensorboard", "gru-lm", "tags Loss/train", task="charlm",
          n_train=1200, sink="tb", tags=TAGS["A"], epochs=4, lr=3e-3, clip=1.0),
        H("pt-tfm-tb-healthy", pt, 2602, "tensorboard", "transformer-cls", "tags train/loss", task="tokens",
          n_train=1200, sink="tb", tags=TAGS["B"], epochs=5, log_grad_norm=True),
        H("pt-conv1d-tb-healthy", pt, 2603, "tensorboard", "conv1d-cls", "tag loss", task="signals", sink="tb",
          tags=TAGS["C"], epochs=6),
        H("pt-reg-tb-healthy", pt, 2604, "tensorboard", "mlp-reg", "tag training_loss", task="regression",
          sink="tb", tags=TAGS["D"], epochs=10, write_config=True),
        H("pt-cnn-tb-healthy", pt, 2605, "tensorboard", "cnn-bn", "tags Train/Loss", task="images", sink="tb",
          tags=TAGS["E"], epochs=6),
        F("pt-cnn-tb-no-zero-grad", pt, 2611, "tensorboard", "cnn-bn",
          "SGD(momentum 0.9) lr 0.01, optimizer.zero_grad() missing", ["O4"], task="images", sink="tb",
          tags=TAGS["E"], epochs=6, opt="sgd", lr=0.01, faults=faults(no_zero_grad=True)),
        F("pt-tfm-tb-double-softmax", pt, 2612, "tensorboard", "transformer-cls",
          "softmax on the logits before nn.CrossEntropyLoss", ["O12"], task="tokens", n_train=1200, sink="tb",
          tags=TAGS["B"], epochs=5, log_grad_norm=True, faults=faults(double_softmax=True)),
        F("pt-mlp-tb-nll-logits", pt, 2613, "tensorboard", "mlp-cls", "nn.NLLLoss fed raw logits", ["O16"],
          task="blobs", sink="tb", tags=TAGS["C"], epochs=6, faults=faults(nll_on_logits=True)),
        F("pt-mlp-tb-accum-undivided", pt, 2614, "tensorboard", "mlp-cls",
          "SGD lr 0.1 tuned unaccumulated; 8-step accumulation without dividing the loss",
          ["O9", "S-lr-too-high", "S-effective-batch-mismatch"], task="blobs", sink="tb", tags=TAGS["B"],
          epochs=10, opt="sgd", lr=0.1, log_grad_norm=True, write_config=True,
          faults=faults(accum_undivided=8)),
        F("pt-reg-tb-loss-sum", pt, 2615, "tensorboard", "mlp-reg",
          "MSE reduction='sum' (batch 64) with SGD lr 0.01 tuned for 'mean'",
          ["S-lr-too-high", "O22"], task="regression", sink="tb", tags=TAGS["D"],
          epochs=6, batch=64, opt="sgd", lr=0.01, faults=faults(loss_sum=True)),
        F("pt-reg-tb-fp16-weights", pt, 2616, "tensorboard", "mlp-reg",
          "model.half() trained directly; targets in raw units (x300) overflow fp16 in the loss",
          ["S-fp16-overflow", "S-fp16-master-weights", "S-nan"], task="regression", sink="tb", tags=TAGS["F"],
          epochs=4, target_scale=300.0, faults=faults(fp16_weights=True)),
        F("pt-reg-tb-amp-scale-collapse", pt, 2617, "tensorboard", "mlp-reg",
          "autocast fp16 + GradScaler, targets in raw units (x3000): grads overflow, scale keeps falling",
          ["O24", "S-fp16-overflow"], task="regression", sink="tb", tags=TAGS["F"], epochs=4,
          target_scale=3000.0, faults=faults(amp_scaler=True)),
        F("pt-conv1d-tb-shuffle-off", pt, 2619, "tensorboard", "conv1d-cls",
          "training set sorted by class and loaded with shuffle=False", ["DP-shuffle-off"], task="signals",
          sink="tb", tags=TAGS["C"], epochs=6, every=2, faults=faults(shuffle_off=True)),
        F("pt-tfm-tb-stale-optimizer", pt, 2620, "tensorboard", "transformer-cls",
          "optimizer built, then the model re-created: the optimizer steps tensors the model no longer uses",
          STALE, task="tokens", n_train=1200, sink="tb", tags=TAGS["B"], epochs=5, log_grad_norm=True,
          faults=faults(stale_optimizer=True)),
        F("pt-gru-lm-tb-lr-high", pt, 2621, "tensorboard", "gru-lm", "Adam lr 0.3 on a GRU (100x), no clipping",
          LR_HIGH + ["S-spike", "S-grad-clip-missing", "S-grad-explosion", "S-plateau"], task="charlm",
          n_train=1200, sink="tb", tags=TAGS["A"], epochs=4, lr=0.3),
        F("pt-mlp-tb-steplr-per-batch", pt, 2622, "tensorboard", "mlp-cls",
          "StepLR(step_size=3, gamma=0.1) meant per epoch, stepped every batch", ["O8", "S-lr-too-low", "S-plateau"],
          task="blobs", sink="tb", tags=TAGS["D"], epochs=6, faults=faults(sched_per_batch=True)),
        # ---------------------------------------------------------------- Keras-style CSV from a plain loop
        H("keras-mlp-healthy", pt, 2701, "keras_csv", "mlp-cls", task="blobs", sink="keras", epochs=6,
          n_train=4000),
        H("keras-cnn-healthy", pt, 2702, "keras_csv", "cnn-bn", task="images", sink="keras", epochs=10),
        H("keras-conv1d-healthy", pt, 2703, "keras_csv", "conv1d-cls", task="signals", sink="keras", epochs=12),
        F("keras-mlp-overfit", pt, 2711, "keras_csv", "mlp-cls", "80 training rows, 80 epochs, width 128, no dropout",
          OVERFIT, task="blobs", sink="keras", epochs=80, n_train=80, batch=16, lr=3e-3),
        F("keras-cnn-eval-train-mode", pt, 2712, "keras_csv", "cnn-bn",
          "validation without model.eval(): dropout 0.5 and BN batch stats on batches of 16", EVAL_MODE,
          task="images", sink="keras", epochs=10, model_kw={"dropout": 0.5},
          faults=faults(eval_in_train_mode=True)),
        F("keras-mlp-labels-shuffled", pt, 2713, "keras_csv", "mlp-cls", "training labels permuted", SHUFFLED,
          task="blobs", sink="keras", epochs=6, n_train=4000, faults=faults(shuffled_labels=True)),
        F("keras-mlp-imbalanced", pt, 2714, "keras_csv", "mlp-cls",
          "96% of samples in one class; accuracy is the only metric besides loss", ["V6"], task="blobs",
          sink="keras", epochs=6, n_train=4000, class_weights=[0.96, 0.01, 0.01, 0.01, 0.01], label_noise=0.0),
        # ---------------------------------------------------------------- printed stdout logs
        H("pt-mlp-stdout-pipe-healthy", pt, 2801, "stdout_pipe", "mlp-cls", task="blobs", sink="print",
          style="pipe", epochs=6, n_train=4000, log_grad_norm=True),
        H("pt-cnn-stdout-tutorial-healthy", pt, 2802, "stdout_tutorial", "cnn-bn", task="images", sink="print",
          style="tutorial", epochs=6, every=10),
        H("pt-gru-stdout-nanogpt-healthy", pt, 2803, "stdout_nanogpt", "gru-lm", task="charlm", n_train=1200,
          sink="print", style="nanogpt", epochs=4, lr=3e-3, clip=1.0, every=2),
        H("pt-tfm-stdout-logging-healthy", pt, 2804, "python_logging", "transformer-cls", task="tokens",
          n_train=1200, sink="print", style="logging", epochs=5),
        H("pt-reg-stdout-epoch-healthy", pt, 2805, "stdout_epoch", "mlp-reg", task="regression", sink="print",
          style="epoch_summary", epochs=25),
        F("pt-gru-stdout-nanogpt-lr-high", pt, 2811, "stdout_nanogpt", "gru-lm", "Adam lr 0.5 (150x), no clipping",
          LR_HIGH + ["S-spike", "S-grad-clip-missing", "S-grad-explosion", "S-plateau"], task="charlm",
          n_train=1200, sink="print", style="nanogpt", epochs=4, lr=0.5, every=2),
        F("pt-cnn-stdout-tutorial-no-zero-grad", pt, 2812, "stdout_tutorial", "cnn-bn",
          "SGD(momentum 0.9) lr 0.01, optimizer.zero_grad() missing", ["O4"], task="images", sink="print",
          style="tutorial", epochs=6, every=10, opt="sgd", lr=0.01, faults=faults(no_zero_grad=True)),
        F("pt-mlp-stdout-logging-bad-batch", pt, 2813, "python_logging", "mlp-cls",
          "one sample with NaN features at step 40; weights NaN after", NAN_ROW, task="blobs", sink="print",
          style="logging", epochs=6, faults=faults(bad_batch_at=40)),
        F("pt-mlp-stdout-pipe-double-softmax", pt, 2814, "stdout_pipe", "mlp-cls",
          "softmax on the logits before F.cross_entropy", ["O12"], task="blobs", sink="print", style="pipe",
          epochs=8, faults=faults(double_softmax=True)),
        F("pt-tfm-stdout-epoch-stale-optimizer", pt, 2815, "stdout_epoch", "transformer-cls",
          "optimizer built, then the model re-created", STALE, task="tokens", n_train=1200, sink="print",
          style="epoch_summary", epochs=5, faults=faults(stale_optimizer=True)),
        F("pt-conv1d-stdout-pipe-lr-tiny", pt, 2816, "stdout_pipe", "conv1d-cls", "Adam lr 1e-6", LR_LOW,
          task="signals", sink="print", style="pipe", epochs=6, lr=1e-6),
        F("pt-mlp-stdout-logging-detached", pt, 2817, "python_logging", "mlp-cls",
          "loss rebuilt as torch.tensor(loss.item(), requires_grad=True): graph cut, no gradient reaches the model",
          ["O3", "O2", "S-plateau"], task="blobs", sink="print", style="logging", epochs=6,
          faults=faults(detached_loss=True)),
        F("pt-mlp-stdout-labels-1based-crash", pt, 2818, "stdout_traceback", "mlp-cls",
          "class ids read as 1..5 from the CSV: CrossEntropyLoss target out of range, run dies",
          ["O14", "DP-label-mapping"], task="blobs", sink="print", style="pipe", epochs=6,
          faults=faults(labels_one_based=True)),
        F("pt-mlp-stdout-bn-batch1-crash", pt, 2819, "stdout_traceback", "mlp-bn",
          "2017 samples, batch 32, drop_last=False: the last batch holds one sample and BatchNorm1d fails",
          ["V7"], task="blobs", sink="print", style="tutorial", epochs=3, every=10, n_train=2017,
          drop_last=False, model_kw={"batchnorm": True}),
        F("pt-reg-stdout-fp16-unscale-crash", pt, 2820, "stdout_traceback", "mlp-reg",
          "model.half() and then GradScaler: unscale_ refuses fp16 gradients", ["S-fp16-master-weights"],
          task="regression", sink="print", style="epoch_summary", epochs=3,
          faults=faults(fp16_weights=True, amp_scaler=True)),
        # ---------------------------------------------------------------- Stable-Baselines3
        H("sb3-ppo-cartpole-csv-healthy", rl, 2901, "sb3_progress", "ppo", algo="PPO"),
        H("sb3-a2c-cartpole-csv-healthy", rl, 2902, "sb3_progress", "a2c", algo="A2C"),
        H("sb3-dqn-cartpole-tb-healthy", rl, 2903, "tensorboard", "dqn", algo="DQN", logger="tb", steps=15000),
        H("sb3-ppo-cartpole-tb-healthy", rl, 2904, "tensorboard", "ppo", algo="PPO", logger="tb"),
        F("sb3-ppo-cartpole-csv-lr-high", rl, 2911, "sb3_progress", "ppo", "PPO learning_rate 0.05 (150x)",
          ["S-lr-too-high", "S-kl-diverged", "S-clip-ratio-high", "R2", "S-entropy-collapse"], algo="PPO",
          learning_rate=0.05),
        F("sb3-a2c-cartpole-tb-lr-tiny", rl, 2912, "tensorboard", "a2c", "A2C learning_rate 1e-7",
          ["S-lr-too-low", "O7", "S-plateau"], algo="A2C", logger="tb", learning_rate=1e-7),
        F("sb3-dqn-cartpole-csv-reward-x100", rl, 2914, "sb3_progress", "dqn",
          "rewards x100, no normalisation or clipping", ["R3"], algo="DQN", reward_scale=100.0, steps=15000),
    ]
    return out


def known_causes() -> set[str]:
    """Cause IDs that exist in the knowledge base (file name = ID)."""
    return {p.stem for p in (ROOT / "knowledge" / "causes").rglob("*.yaml")}


def check_specs(all_specs: list[Spec]) -> None:
    known = known_causes()
    names = set()
    for s in all_specs:
        if s.name in names:
            raise SystemExit(f"duplicate run name {s.name}")
        names.add(s.name)
        bad = [c for c in s.causes if c not in known]
        if bad:
            raise SystemExit(f"{s.name}: unknown cause IDs {bad}")


def log_files_ok(d: Path) -> bool:
    """Same rule bench/accuracy.py uses to find the log: a tb/ folder, or exactly one file that is
    not the label or a config."""
    if (d / "tb").is_dir():
        return True
    return len([p for p in d.iterdir() if p.is_file() and p.name not in {"label.json", "config.json",
                                                                          "hparams.yaml"}]) == 1


def run_one(s: Spec, root: Path) -> str:
    import importlib

    import torch

    torch.set_num_threads(1)
    d = root / s.name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    label = {"healthy": s.healthy, "causes": s.causes, "fault": s.fault, "format": s.fmt, "model": s.model,
             "seed": s.seed}
    (d / "label.json").write_text(json.dumps(label, indent=2) + "\n")  # written before training
    mod_name, fn_name = s.maker.split(".")
    mod = importlib.import_module(mod_name)
    result = getattr(mod, fn_name)(d, s.seed, **s.kw)
    for junk in d.rglob("*"):  # keep logs only
        if junk.is_file() and junk.suffix in {".bin", ".safetensors", ".pt", ".ckpt", ".zip"}:
            junk.unlink()
    if not log_files_ok(d):
        raise RuntimeError(f"{s.name}: log files not as expected: {sorted(p.name for p in d.iterdir())}")
    if isinstance(result, dict):
        keys = ("first", "last", "val_loss", "val_acc")
        return " ".join(f"{k}={result[k]:.4g}" for k in keys if isinstance(result.get(k), float)) + (
            f" CRASHED {result['crashed']}" if result.get("crashed") else "")
    return getattr(mod, "summary", lambda _d: "")(d)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", default=None, help="glob(s) of run names to (re)make")
    ap.add_argument("--out", default=str(HERE / "runs"))
    ap.add_argument("--list", action="store_true", help="list the runs and their labels, make nothing")
    ap.add_argument("--seed-offset", type=int, default=0,
                    help="add this to every run's seed: the same runs trained again from other random draws "
                         "(a fresh held-out copy, e.g. --seed-offset 1000 --out bench/corpus_libs_s2/runs)")
    args = ap.parse_args(argv)
    all_specs = specs()
    for s in all_specs:
        s.seed += args.seed_offset
    check_specs(all_specs)
    chosen = [s for s in all_specs if not args.only or any(fnmatch.fnmatch(s.name, g) for g in args.only)]
    if args.list:
        for s in chosen:
            print(f"{s.name:42s} {'healthy' if s.healthy else ','.join(s.causes)}")
        print(f"{len(chosen)} runs, {sum(s.healthy for s in chosen)} healthy")
        return 0
    warnings.filterwarnings("ignore")
    root = Path(args.out)
    root.mkdir(parents=True, exist_ok=True)
    failed = []
    t_all = time.perf_counter()
    for i, s in enumerate(chosen, 1):
        t0 = time.perf_counter()
        try:
            info = run_one(s, root)
        except Exception as exc:  # report, remove the half-made run, go on
            failed.append(s.name)
            shutil.rmtree(root / s.name, ignore_errors=True)
            print(f"[{i}/{len(chosen)}] {s.name}: FAILED {type(exc).__name__}: {exc}", flush=True)
            continue
        print(f"[{i}/{len(chosen)}] {s.name} {time.perf_counter() - t0:.1f}s  {info}", flush=True)
    print(f"done in {time.perf_counter() - t_all:.0f}s; {len(chosen) - len(failed)} made, {len(failed)} failed"
          + (f": {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
