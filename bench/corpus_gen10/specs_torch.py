"""Specs of the plain-PyTorch runs."""

T1 = {"train_loss": "Loss/train", "val_loss": "Loss/val", "val_acc": "Accuracy/val", "lr": "LR"}
T2 = {"loss": "train/loss", "lr": "train/lr", "scale": "train/grad_scale", "val_loss": "val/loss",
      "val_acc": "val/acc"}
T3 = {"loss": "loss", "val_loss": "val_loss", "val_acc": "val_acc"}


def S(name, fmt, healthy, causes, fault, model, seed, cfg, bug=None):
    return {"name": name, "family": "torch", "format": fmt, "healthy": healthy, "causes": causes, "fault": fault,
            "model": model, "seed": seed, "cfg": cfg, "bug": bug}


SPECS = [
    S("pt_tab_tb_smallval", "torch_tb", True, [], "healthy control",
      "MLP 16-64-64-4", 101,
      {"task": "tab", "style": "tb", "tags": {**T1, "loss": "Loss/train_step"}, "epochs": 20, "lr": 2e-3,
       "nval": 60, "noise": 0.1, "n": 1800}),
    S("pt_tab_tb_gradscaler", "torch_tb", True, [], "healthy control",
      "MLP 16-128-128-4 (fp16 autocast)", 102,
      {"task": "tab", "style": "tb", "tags": T2, "epochs": 12, "lr": 1e-3, "hidden": 128, "amp": True,
       "init_scale": 2.0 ** 24, "log_every": 5}),
    S("pt_img_pipe_warmcos", "torch_printed", True, [], "healthy control",
      "CNN (2 conv + BN)", 103,
      {"task": "img", "style": "pipe", "epochs": 8, "lr": 3e-3, "sched": "warmcos", "warmup": 40, "n": 1400}),
    S("pt_reg_logging", "torch_printed", True, [], "healthy control",
      "MLP 8-64-64-64-1 regression", 104,
      {"task": "reg", "style": "logging", "epochs": 15, "lr": 2e-3, "log_every": 20}),
    S("pt_img_tqdm", "torch_printed", True, [], "healthy control",
      "CNN (2 conv + BN)", 105,
      {"task": "img", "style": "tqdm", "epochs": 6, "lr": 2e-3, "n": 1400}),
    S("pt_img_epochbatch", "torch_printed", True, [], "healthy control",
      "CNN (2 conv + BN)", 106,
      {"task": "img", "style": "epochbatch", "epochs": 6, "lr": 0.03, "opt": "sgd", "n": 1400, "log_every": 5}),
    S("pt_seq_dict", "torch_printed", True, [], "healthy control",
      "GRU(48) classifier", 107,
      {"task": "seq", "style": "dict", "epochs": 10, "lr": 3e-3, "cell": "gru", "clip": 1.0, "log_every": 15}),
    # ---- faults
    S("pt_tab_keraslike_trainmode", "torch_printed", False, ["O5"],
      "model.train() called once before the loop; the per-epoch evaluation calls model.eval() and it is never "
      "undone, so from epoch 2 on training runs in eval mode (BatchNorm running stats, dropout 0.5 off)",
      "MLP 16-128-128-4 with BatchNorm1d and Dropout(0.5)", 111,
      {"task": "tab", "style": "keraslike", "epochs": 15, "lr": 5e-3, "hidden": 128, "bn": True, "dropout": 0.5,
       "n": 1500, "noise": 0.1}, bug="train_mode_once"),
    S("pt_reg_tb_broadcast", "torch_tb", False, ["S-target-size-mismatch", "S-missing-axis"],
      "MSELoss gets predictions (B,1) against targets (B,): broadcast to BxB, the net learns the target mean",
      "MLP 8-64-64-64-1 regression", 113,
      {"task": "reg", "style": "tb", "tags": {"loss": "train/loss", "lr": "train/lr", "val_loss": "val/loss",
                                              "train_loss": "train/epoch_loss"}, "epochs": 15, "lr": 2e-3},
      bug="mse_broadcast"),
    S("pt_tab_pipe_warmup_uncapped", "torch_printed", False, ["S-lr-too-high"],
      "warmup LambdaLR written as (step+1)/warmup without min(1, ...): the LR keeps growing linearly for the whole "
      "run until the loss diverges",
      "MLP 16-64-64-4", 114,
      {"task": "tab", "style": "pipe", "epochs": 12, "lr": 5e-3, "sched": "warm_uncapped", "warmup": 8,
       "log_every": 10}, bug="warm_uncapped"),
    S("pt_img_tqdm_valtrains", "torch_printed", False, ["PB-leaky-split", "S-verify-experiment"],
      "validation loop copied from the train loop keeps zero_grad/backward/step under torch.enable_grad(): "
      "the model trains on the validation set",
      "CNN (2 conv + BN)", 115,
      {"task": "img", "style": "tqdm", "epochs": 6, "lr": 2e-3, "n": 1000, "nval": 500}, bug="val_trains"),
    S("pt_tab_logging_leak", "torch_printed", False, ["M-memory-leak"],
      "running loss accumulated as a tensor (running = running + loss) and outputs kept in a list: every step's "
      "graph stays alive, host memory grows each step",
      "MLP 16-512-512-4", 116,
      {"task": "tab", "style": "logging", "epochs": 8, "lr": 1e-3, "hidden": 512, "bs": 256, "n": 12000,
       "log_every": 10}, bug="leak_graph"),
    S("pt_img_epochbatch_viewcrash", "torch_printed", False, ["S-shape-mismatch", "PB-forward-smoke"],
      "validation reshapes each batch with xb.view(batch_size, ...) (hard-coded 64); the last validation batch "
      "is short, so the first evaluation (epoch 3) raises RuntimeError",
      "CNN (2 conv + BN)", 117,
      {"task": "img", "style": "epochbatch", "epochs": 8, "lr": 2e-3, "n": 1400, "nval": 300, "val_bs": 64,
       "eval_every": 3, "log_every": 5}, bug="hard_view"),
    S("pt_tab_dict_notscalar", "torch_printed", False, ["S-loss-not-scalar"],
      "class re-weighting switched on from epoch 3 uses F.cross_entropy(reduction='none') * weights without "
      ".mean(): backward() on a vector raises at the first step of epoch 3",
      "MLP 16-64-64-4", 118,
      {"task": "tab", "style": "dict", "epochs": 8, "lr": 2e-3, "log_every": 10}, bug="weighted_none"),
    S("pt_tab_ansi_float64", "torch_printed", False, ["S-dtype-mismatch"],
      "validation features loaded as float64 (numpy default) while the model is float32: the first evaluation "
      "raises 'mat1 and mat2 must have the same dtype'",
      "MLP 16-64-64-4", 119,
      {"task": "tab", "style": "ansi", "epochs": 6, "lr": 2e-3, "log_every": 10}, bug="val_float64"),
    S("pt_tab_tb_scaler_nostep", "torch_tb", False, ["S-grad-explosion", "S-nan", "S-lr-too-high"],
      "fp16 GradScaler: scaler.scale(loss).backward() followed by optimizer.step() directly (not scaler.step): "
      "SGD applies gradients multiplied by the loss scale (65536) and the scale is never updated",
      "MLP 16-128-128-4 (fp16 autocast)", 120,
      {"task": "tab", "style": "tb", "tags": {**T2, "train_loss": "train/epoch_loss"}, "epochs": 6, "lr": 0.02,
       "opt": "sgd", "hidden": 128, "amp": True, "log_every": 1}, bug="scaler_no_step"),
    S("pt_seq_tb_viewbug", "torch_tb", False, ["S-shape-mismatch"],
      "channel-first signals (B,C,T) reshaped to (B,T,C) with reshape instead of transpose: channels and time "
      "steps are scrambled before the GRU",
      "GRU(48) classifier", 121,
      {"task": "seq", "style": "tb", "tags": T3, "epochs": 10, "lr": 3e-3, "cell": "gru", "clip": 1.0},
      bug="view_not_transpose"),
]
