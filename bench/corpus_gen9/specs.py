"""The 60 run specs of corpus_gen9 (24 healthy, 36 with one injected bug each).

Each spec: name, fmt (log format), model, fn (family function "module.function"), kw (the switches that function
reads), causes (cause ids, empty for healthy runs), fault (one sentence, "healthy control" for healthy runs),
desc (what the run is, for the README). Seeds are 901.. in list order.
"""

from __future__ import annotations


def H(name, fmt, model, fn, desc, **kw):
    return dict(name=name, fmt=fmt, model=model, fn=fn, kw=kw, causes=[], fault="healthy control", desc=desc)


def F(name, fmt, model, fn, causes, fault, **kw):
    return dict(name=name, fmt=fmt, model=model, fn=fn, kw=kw, causes=list(causes), fault=fault, desc=fault)


_PPO = dict(algo="ppo", steps=12000, n_steps=512, batch_size=64, learning_rate=1e-3)

SPECS = [
    # ---------------------------------------------------------------- healthy
    H("h_bert_warmup_linear", "hf_state", "bert-tiny-cls", "fam_hf.hf_bert_cls",
      "BERT sentiment classifier, AdamW 1e-3, warmup over 30% of the run then linear decay: loss flat at ln 2 through the warmup, then falls",
      lr=1e-3, warmup=0.3),
    H("h_llama_cosine_restarts", "hf_state", "llama-tiny-lm", "fam_hf.hf_llama_lm",
      "LLaMA char LM, lr 2e-3, cosine_with_restarts (3 cycles): the LR jumps back up twice", sched="cosine_with_restarts", num_cycles=3),
    H("h_dpo_ln2", "hf_state", "llama-tiny-dpo", "fam_hf.trl_dpo",
      "DPO (beta 0.1, lr 5e-4) from the SFT base: loss exactly ln 2 at the first step, then margins grow (digits preferred to spelled-out numbers)"),
    H("h_gpt2_lm_console", "hf_console", "gpt2-tiny-lm", "fam_hf.hf_gpt2_lm",
      "GPT-2 char LM, lr 2e-3, warmup 20, cosine, 3 epochs; printed Trainer console with tqdm bars"),
    H("h_grpo_console", "hf_console", "llama-tiny-grpo", "fam_hf.trl_grpo",
      "GRPO (lr 2e-4, beta 0.04, 4 generations) with a toy 'ends in the park' reward: loss ~0 from the start, reward rises from ~0.2-0.4 to ~1.0",
      reward="park", max_completion_length=16, console=True),
    H("h_llama_resumed", "hf_console", "llama-tiny-lm", "fam_hf.hf_llama_resumed",
      "LLaMA char LM: the first job stops at step 70, the resubmitted job resumes from checkpoint-50 (steps 51-70 logged twice)"),
    H("h_lit_csv_earlystop", "lightning_csv", "mlp", "fam_lit.lit_csv_earlystop",
      "wide MLP on 300 noisy rows, EarlyStopping(val_loss, patience 5) ends the 100-epoch budget after ~9 epochs once val_loss turns up"),
    H("h_lit_tb_cnn_onecycle", "lightning_tb", "cnn-bn", "fam_lit.lit_tb_cnn",
      "CNN on noisy shapes, AdamW with OneCycleLR (max 3e-3) stepped per batch: LR rises then anneals to ~0"),
    H("h_lit_console_mlp", "lightning_console", "mlp", "fam_lit.lit_console_mlp",
      "MLP on tabular rows, AdamW 2e-3, 10 epochs; Lightning's tqdm progress bar captured"),
    H("h_tb_amp_scaler_skips", "tensorboard", "mlp", "fam_torch.tb_amp_mlp",
      "fp16 autocast + GradScaler(init_scale=2**24): the first steps overflow and are skipped while the scale halves, then it settles"),
    H("h_tb_gru", "tensorboard", "gru-cls", "fam_torch.tb_gru",
      "GRU on noisy sinusoids (frequency = class), Adam 3e-3, clip 1.0: flat at ln 4 for ~2 epochs, then learns; tags loss / val_loss / val_acc"),
    H("h_tb_cnn_noisy_val", "tensorboard", "cnn-bn", "fam_torch.tb_cnn",
      "CNN on shapes, validated every 10 steps on only 32 images: Accuracy/val moves in 1/32 jumps", noisy_val=True),
    H("h_sb3_ppo_csv", "sb3_progress_csv", "ppo-mlp", "fam_sb3.sb3_run",
      "PPO on CartPole-v1, 12k steps, n_steps 512: noisy but rising ep_rew_mean (~30 -> ~118), value loss jumping", out="csv", **_PPO),
    H("h_sb3_a2c_console", "sb3_console", "a2c-mlp", "fam_sb3.sb3_run",
      "A2C (defaults) on CartPole-v1, 10k steps, verbose=1 tables: slow noisy rise, value_loss spikes into the thousands",
      algo="a2c", steps=10000, out="stdout", log_interval=50),
    H("h_sb3_ppo_tb", "sb3_tb", "ppo-mlp", "fam_sb3.sb3_run",
      "PPO on CartPole-v1 with 4 envs, n_steps 128, lr 1e-3 decayed linearly to 0", algo="ppo", steps=12000, n_envs=4, n_steps=128, batch_size=64,
      learning_rate=1e-3, lr_schedule="linear", out="tb"),
    H("h_keras_csv_cnn", "keras_csv", "keras-cnn", "fam_keras_sk.keras_csv", "Keras CNN on shapes, Adam 1e-3, 12 epochs, CSVLogger", task="cnn"),
    H("h_keras_console_plateau", "keras_console", "keras-mlp", "fam_keras_sk.keras_console",
      "Keras MLP on rows with 20% label noise, ReduceLROnPlateau + EarlyStopping(restore_best_weights): val_loss flat after epoch 3, LR cut twice, stops at epoch 11 and restores epoch 4",
      task="plateau_es"),
    H("h_sk_mlp_earlystop", "sklearn_console", "sk-mlp", "fam_keras_sk.sk_mlp",
      "scikit-learn MLPClassifier(early_stopping=True, n_iter_no_change=8, verbose=True) behind a StandardScaler: stops when the validation score stalls",
      early_stopping=True, n_iter_no_change=8),
    H("h_print_tqdm_mlp", "printed_tqdm", "mlp", "fam_torch.print_tqdm_mlp", "MLP on tabular rows, Adam 1e-3, tqdm bar per epoch with loss/acc postfix"),
    H("h_print_logging_warmup_cosine", "printed_logging", "cnn-bn", "fam_torch.print_logging_cnn",
      "CNN on shapes, AdamW 4e-3 with a 60-step warmup then cosine to 0, Python logging with timestamps and logger names",
      warmup_cosine=True, lr=4e-3),
    H("h_print_epoch_batch_cnn", "printed_epoch_batch", "cnn-bn", "fam_torch.print_epoch_batch_cnn",
      "CNN on shapes, SGD momentum 0.9 lr 0.02, 'Epoch [3/8] Batch [20/38] Loss: ...' lines"),
    H("h_print_dict_label_noise", "printed_dict", "mlp", "fam_torch.print_dict_mlp",
      "MLP on rows with 30% label noise, AdamW 1e-3: eval loss plateaus near 1.0 after real learning (dict lines)", noise=0.3),
    H("h_print_ansi_charlm", "printed_ansi", "char-transformer", "fam_torch.print_ansi_charlm",
      "pre-LN transformer char LM, AdamW 2e-3, warmup 30 + cosine, clip 1.0; coloured log lines with tok/s and ms/it"),
    H("h_print_table_sgdr", "printed_table", "mlp", "fam_torch.print_table_mlp",
      "MLP, SGD momentum 0.9 lr 0.05, CosineAnnealingWarmRestarts(T_0=2, T_mult=2) stepped per batch: LR back to 0.05 at epochs 3 and 7, train loss bumps",
      sgdr=True),
    # ---------------------------------------------------------------- faulty: HF / TRL
    F("f_gpt2cls_no_pad_id", "hf_console", "gpt2-tiny-cls", "fam_hf.hf_gpt2_cls", ["L3", "S-pad-token-config"],
      "tokenizer.pad_token = tokenizer.eos_token set for padding but model.config.pad_token_id left unset: GPT2ForSequenceClassification raises "
      "'Cannot handle batch sizes > 1 if no padding token is defined' at the first step"),
    F("f_bert_float_labels", "hf_console", "bert-tiny-cls", "fam_hf.hf_bert_cls", ["S-target-size-mismatch", "S-dtype-mismatch", "O14"],
      "labels stored as floats (0.0/1.0): with num_labels=2 the model takes multi_label_classification (BCEWithLogits), and the (16,) target "
      "against (16, 2) logits raises at step 1", float_labels=True, console=True),
    F("f_llama_fp16_weights", "hf_state", "llama-tiny-lm", "fam_hf.hf_llama_lm", ["O10", "S-fp16-master-weights", "S-nan"],
      "model cast with .to(torch.float16) and trained in pure half precision (no AMP, fp32 master weights absent): AdamW's eps 1e-8 rounds to 0 in fp16, "
      "grad_norm is nan from step 10, the logged loss reads 0.0 (nan filtered) and eval_loss nan", dtype="float16", epochs=1, eval_steps=10),
    F("f_dpo_maxlen_cuts_completions", "hf_state", "llama-tiny-dpo", "fam_hf.trl_dpo", ["L9", "PB-data-inventory"],
      "DPOConfig(max_length=40) set for the answer length while the prompt alone is 31 tokens: keep_start truncation leaves ' the sum ', identical in "
      "chosen and rejected, so the loss is exactly ln 2 with zero gradient and zero margins for the whole run", max_length=40),
    F("f_grpo_reward_int_crash", "hf_console", "llama-tiny-grpo", "fam_hf.trl_grpo", ["S-grpo-reward-zero", "PB-forward-smoke"],
      "reward function parses the answer with int(completion.split('.')[0]) and no guard: the first completion that does not start with a "
      "number raises ValueError at the first step", reward="sum_int", console=True),
    F("f_grpo_reward_exact_match", "hf_state", "llama-tiny-grpo", "fam_hf.trl_grpo", ["S-grpo-reward-zero", "S-reward-std-zero"],
      "reward compares the decoded completion to str(answer) with ==; completions end with '.', so every reward is 0: reward_std 0, loss 0, "
      "the policy never moves", reward="sum_exact"),
    F("f_grpo_lr_high", "hf_console", "llama-tiny-grpo", "fam_hf.trl_grpo", ["S-lr-too-high", "S-kl-diverged", "R2"],
      "GRPO learning_rate=2e-2 (meant 2e-4): the policy leaves the reference within a few steps (kl 4-6), completions run to the 8-token cap, "
      "reward falls to 0", lr=2e-2, console=True),
    # ---------------------------------------------------------------- faulty: Lightning
    F("f_lit_list_layers", "lightning_csv", "mlp", "fam_lit.lit_csv_listlayers", ["O2"],
      "hidden Linear layers kept in a plain Python list (not nn.ModuleList): they are not registered, so the optimizer trains only the output "
      "layer on fixed random features", list_layers=True),
    F("f_lit_plateau_monitor_typo", "lightning_console", "mlp", "fam_lit.lit_console_mlp", ["PB-monitor-key"],
      "ReduceLROnPlateau set to monitor 'val/loss' while the module logs 'val_loss': Lightning raises MisconfigurationException at the end "
      "of the first training epoch", sched="plateau", monitor="val/loss"),
    F("f_lit_feature_leak", "lightning_tb", "mlp", "fam_lit.lit_tb_leak", ["S-verify-experiment", "PB-leaky-split", "PB-data-inventory"],
      "an engineered 'segment_score' feature is computed from the label table (target leakage): val_acc reaches 0.996 on data with 15% label noise"),
    F("f_lit_forward_no_grad", "lightning_console", "mlp", "fam_lit.lit_console_mlp", ["O3"],
      "the model's forward is decorated with @torch.no_grad() (shared with the serving path): the loss has no grad_fn and backward raises at "
      "the first step", serving_forward=True),
    F("f_lit_kd_kldiv_probs", "lightning_tb", "mlp-student", "fam_lit.lit_tb_distill", ["O16", "PB-distill-loss-terms"],
      "distillation loss F.kl_div(student_probs, teacher_probs): kl_div wants log-probabilities as its input, so the logged KD loss is negative "
      "(~-6) and the student is pushed to put all its mass on the teacher's top class (val CE rises while accuracy climbs)"),
    # ---------------------------------------------------------------- faulty: plain PyTorch + TensorBoard
    F("f_tb_scaler_per_step", "tensorboard", "mlp", "fam_torch.tb_amp_mlp", ["O24", "S-fp16-overflow"],
      "GradScaler(init_scale=2**24) created inside train_step: every step starts from a fresh scale that overflows in fp16, so every optimizer "
      "step is skipped (loss flat at ln 4, logged scale stuck at 8.4e6)", scaler_per_step=True, scale_tag="train/grad_scale", acc_tag="val/accuracy"),
    F("f_tb_step_outside_loop", "tensorboard", "cnn-bn", "fam_torch.tb_cnn", ["O4", "S-plateau"],
      "optimizer.step() dedented out of the batch loop: zero_grad/backward run every batch but there is one update per epoch, from the last "
      "batch's gradient", step_outside=True, epochs=15),
    F("f_tb_normal_init", "tensorboard", "mlp-deep", "fam_torch.tb_deep_init", ["S-grad-explosion", "S-nan"],
      "every Linear weight re-initialised with nn.init.normal_(w) (std 1.0; meant std=0.02) in a 4-hidden-layer ReLU MLP, SGD momentum 0.9: the "
      "first loss is in the thousands, it explodes and is nan within 10 steps"),
    F("f_tb_pos_weight_inverted", "tensorboard", "mlp-binary", "fam_torch.tb_binary_posweight", ["V6"],
      "BCEWithLogitsLoss(pos_weight=n_pos/n_neg) (meant n_neg/n_pos) on 8%-positive data: the minority class is down-weighted 11x, recall and F1 "
      "stay 0 while accuracy reads 0.90", inverted=True),
    # ---------------------------------------------------------------- faulty: printed logs
    F("f_print_opt_rebuilt_each_epoch", "printed_logging", "cnn-bn", "fam_torch.print_logging_cnn", ["O23", "C-optimizer-state"],
      "AdamW rebuilt at the start of every epoch while the warmup+cosine LambdaLR stays attached to the first one: the logged lr follows the "
      "schedule down to 0, but training runs at the constant peak 4e-3 with fresh Adam moments each epoch (val loss jumps from epoch to epoch instead of settling)",
      warmup_cosine=True, opt_each_epoch=True, lr=4e-3),
    F("f_print_batch_stats_inputs", "printed_tqdm", "mlp", "fam_torch.print_tqdm_mlp", ["V1"],
      "inputs standardised inside forward() with the statistics of the current batch; validation runs one row at a time, so every validation "
      "input becomes 0: val_acc sits at the majority-class share while train acc climbs", batch_norm_inputs=True),
    F("f_print_no_zero_grad_cnn", "printed_epoch_batch", "cnn-bn", "fam_torch.print_epoch_batch_cnn", ["O4"],
      "optimizer.zero_grad() missing from the batch loop (SGD momentum 0.9, lr 0.02): gradients add up across steps, training and validation "
      "loss climb into the hundreds", no_zero_grad=True),
    F("f_print_sorted_split", "printed_dict", "mlp-regression", "fam_torch.print_dict_regression", ["PB-data-inventory", "DP-shuffle-off"],
      "rows exported ordered by the target and split 80/20 in that order (no shuffle before the split): validation holds only the top 20% of "
      "targets, val MSE ~12x train MSE"),
    F("f_print_manual_bce_log0", "printed_ansi", "mlp-binary", "fam_torch.print_ansi_manual_bce", ["O13", "S-log-of-zero", "S-nan"],
      "binary cross-entropy written by hand as -(y*log(p) + (1-y)*log(1-p)) on sigmoid outputs: once a confident positive gets p == 1.0 in "
      "float32, 0 * log(0) is nan and the weights go nan mid-run"),
    F("f_print_accum_zero_grad_inside", "printed_table", "mlp", "fam_torch.print_table_mlp", ["O4", "S-lr-too-low", "S-effective-batch-mismatch"],
      "gradient accumulation over 16 micro-batches of 8 with optimizer.zero_grad() inside the micro-batch loop: each step uses only the last "
      "micro-batch's gradient divided by 16 (1/16 of the data, a 16x smaller step)", accum=16, lr=0.05),
    F("f_print_l2_hoisted_backward_twice", "printed_pipe", "gru-cls", "fam_torch.print_pipe_gru", ["S-backward-twice"],
      "an L2 penalty sum(p.pow(2).sum()) computed once before the loop and added to every step's loss: the second backward() runs through its "
      "freed graph and raises RuntimeError at step 1"),
    F("f_print_best_state_reference", "printed_brackets", "mlp-wide", "fam_torch.print_brackets_earlystop", ["PB-checkpoint-pair"],
      "hand-written early stopping keeps best_state = model.state_dict() (references to the live tensors, no deepcopy): 'restoring best "
      "weights' restores the last epoch's weights, and the final val_loss is not the best one"),
    F("f_print_resume_weights_only", "printed_brackets", "mlp", "fam_torch.print_brackets_resume", ["C-weights-only", "S-library-version"],
      "the checkpoint stores best_val_loss as a numpy float64 and the resume calls torch.load(path) with the PyTorch >= 2.6 default "
      "weights_only=True: the resubmitted job dies with UnpicklingError before its first epoch"),
    F("f_print_leftpad_loss_mask", "printed_units", "char-transformer", "fam_torch.print_units_leftpad", ["L1", "O15", "L2"],
      "the collate pads on the left (copied from the generation script) while the loss mask keeps the first len-1 positions (right padding "
      "assumed): pad-to-pad predictions are scored and the ends of short lines are not; the loss looks low but the sums are never learned"),
    F("f_print_lm_lr_high", "printed_keraslike", "char-transformer", "fam_torch.print_keraslike_lm", ["S-lr-too-high", "S-warmup-short", "S-plateau"],
      "AdamW lr 3e-2 (meant 2e-3) on a post-LN transformer char LM with no warmup: the loss stalls near 2.0 (a trial at 2e-3 reached ~0.65)", lr=3e-2),
    # ---------------------------------------------------------------- faulty: Keras / scikit-learn
    F("f_keras_softmax_from_logits", "keras_csv", "keras-mlp", "fam_keras_sk.keras_csv", ["O12"],
      "final Dense has activation='softmax' and the loss is SparseCategoricalCrossentropy(from_logits=True): softmax applied twice, the loss "
      "floors near 0.85 while accuracy reaches 0.90", task="mlp_logits"),
    F("f_keras_norm_adapted_raw", "keras_csv", "keras-cnn", "fam_keras_sk.keras_csv", ["V1"],
      "Normalization layer adapt()ed on the raw 0-255 images, then the model is fed x/255: every input sits near -2 with a tiny spread, "
      "accuracy stays at chance", task="cnn_norm_raw"),
    F("f_keras_valsplit_sorted", "keras_console", "keras-mlp", "fam_keras_sk.keras_console", ["PB-data-inventory", "DP-shuffle-off"],
      "rows sorted by class, then fit(validation_split=0.2, shuffle=True): Keras takes the last 20% of rows before shuffling, so validation is "
      "all of class 3 plus the tail of class 2, and class 3 never appears in training (val_loss climbs while train accuracy reaches 0.97)", task="sorted_valsplit"),
    F("f_keras_lr_high", "keras_console", "keras-mlp", "fam_keras_sk.keras_console", ["S-lr-too-high", "O25"],
      "Adam(learning_rate=0.5) (meant 5e-4): the loss jumps to ~9.7 in the first epoch and freezes there (dead ReLUs), accuracy 0.41",
      task="lr_high", lr=0.5),
    F("f_sk_unscaled_features", "sklearn_console", "sk-mlp", "fam_keras_sk.sk_mlp", ["PB-data-inventory", "V1", "S-plateau"],
      "MLPClassifier fitted on raw features whose scales range from 0.01 to 50000 (the StandardScaler step left out): the loss stalls near "
      "7.5 and test accuracy is ~0.35", no_scaler=True, scales=[1, 1000, 0.01, 50000, 1, 1, 300, 1, 1, 2000, 1, 1], max_iter=120),
    F("f_sk_alpha_huge", "sklearn_console", "sk-mlp", "fam_keras_sk.sk_mlp", ["S-weight-decay-high", "S-plateau"],
      "MLPClassifier(alpha=30.0) (meant 3e-4): the L2 penalty dominates, the loss plateaus high and the two minority classes are never predicted",
      alpha=30.0, max_iter=80),
    # ---------------------------------------------------------------- faulty: stable-baselines3
    F("f_sb3_obs_scaled_by_bounds", "sb3_tb", "ppo-mlp", "fam_sb3.sb3_run", ["R3", "V1"],
      "an observation wrapper divides by observation_space.high; CartPole's velocity bounds are 3.4e38, so both velocity inputs become ~0 and "
      "the policy sees only position and angle (return ~50 after 12k steps where the same PPO on raw observations reaches ~115)", scale_by_bounds=True, out="tb", **_PPO),
    F("f_sb3_a2c_max_grad_norm_zero", "sb3_progress_csv", "a2c-mlp", "fam_sb3.sb3_run", ["PB-optimizer-defaults", "S-plateau"],
      "A2C(max_grad_norm=0.0) meant as 'no clipping': SB3 clips the gradient norm to 0, so no update changes the policy; entropy stays at ln 2 "
      "and the return at ~21", algo="a2c", steps=10000, out="csv", max_grad_norm=0.0, log_interval=50),
    F("f_sb3_vecnorm_eval_crash", "sb3_console", "ppo-mlp", "fam_sb3.sb3_run", ["V1"],
      "training env wrapped in VecNormalize while EvalCallback gets a raw env: SB3 warns at the start, then the first evaluation (step 2048) "
      "raises AssertionError while syncing the normalisation statistics", out="stdout", vecnormalize=True, eval_freq=2048, **_PPO),
]

for _i, _s in enumerate(SPECS):
    _s["seed"] = 901 + _i
    _s["healthy"] = not _s["causes"]
