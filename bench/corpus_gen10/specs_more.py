"""Specs of the HF / TRL / Lightning / SB3 / Keras / scikit-learn runs."""


def S(name, family, fmt, healthy, causes, fault, model, seed, cfg, bug=None):
    return {"name": name, "family": family, "format": fmt, "healthy": healthy, "causes": causes, "fault": fault,
            "model": model, "seed": seed, "cfg": cfg, "bug": bug}


BERT = "BertForSequenceClassification (2 layers, hidden 64) from config"
GPT2 = "GPT2LMHeadModel (2 layers, n_embd 64) from config, char-level"
LLAMA = "LlamaForCausalLM (2 layers, hidden 64) from config, char-level"

SPECS = [
    S("hf_bert_json_warmup", "hf", "hf_json", True, [], "healthy control", BERT, 201,
      {"kind": "bert_cls", "lr": 1e-3, "warmup": 60, "epochs": 3}),
    S("hf_gpt2_console_restarts", "hf", "hf_console", True, [], "healthy control", GPT2, 202,
      {"kind": "gpt2_lm", "lr": 2e-3, "warmup": 10, "max_steps": 240, "sched": "cosine_with_restarts",
       "sched_kwargs": {"num_cycles": 3}, "eval_steps": 40}),
    S("hf_llama_json_resumed", "hf", "hf_json", True, [], "healthy control", LLAMA, 203,
      {"kind": "llama_lm", "lr": 2e-3, "warmup": 20, "max_steps": 200, "resume": True, "eval_steps": 40}),
    S("hf_gpt2_json_lowlr", "hf", "hf_json", False, ["S-lr-too-low", "O7"],
      "learning_rate 5e-6 for a GPT-2 trained from scratch (fine-tuning value copied into a pretraining config)",
      GPT2, 211, {"kind": "gpt2_lm", "lr": 5e-6, "warmup": 10, "max_steps": 240, "eval_steps": 40}),
    S("hf_bert_console_highlr", "hf", "hf_console", False, ["S-lr-too-high", "S-warmup-short"],
      "learning_rate 1e-2 with no warmup for a BERT classifier", BERT, 212,
      {"kind": "bert_cls", "lr": 1e-2, "warmup": 0, "epochs": 3}),
    S("hf_bertmlm_json_maskprob", "hf", "hf_json", False, ["S-empty-sequence-nan", "S-nan"],
      "DataCollatorForLanguageModeling(mlm_probability=0.0015) (meant 0.15): most batches have no masked "
      "token, every label is -100 and the loss of those batches is NaN (hidden by the Trainer's default logging_nan_inf_filter); the others are scored on one or two tokens",
      "BertForMaskedLM (2 layers, hidden 64) from config", 213,
      {"kind": "bert_mlm", "lr": 1e-3, "warmup": 30, "epochs": 3, "mlm_probability": 0.0015}),
    S("hf_bert_console_onelabel", "hf", "hf_console", False, ["O14", "PB-mse-on-logits"],
      "sentiment classifier built with num_labels=1 and float labels: BERT treats it as regression (MSE on one "
      "output) and the accuracy computed with argmax over one column is constant",
      BERT, 214, {"kind": "bert_cls", "lr": 1e-3, "warmup": 60, "epochs": 3, "num_labels": 1,
                  "float_labels": True}),
    S("hf_llama_json_sgd", "hf", "hf_json", False, ["S-lr-too-low", "O7", "PB-optimizer-defaults"],
      "optim switched to 'sgd' (no momentum) while keeping the AdamW learning rate 1e-3: the model barely learns",
      LLAMA, 215, {"kind": "llama_lm", "lr": 1e-3, "warmup": 20, "max_steps": 200, "optim": "sgd",
                   "eval_steps": 40}),
    S("trl_dpo_json", "hf", "trl_json", True, [], "healthy control", LLAMA + " + DPOTrainer", 221,
      {"kind": "dpo", "lr": 1e-3, "beta": 0.1, "max_steps": 80, "warmup": 5}),
    S("trl_grpo_console", "hf", "trl_console", True, [], "healthy control", LLAMA + " + GRPOTrainer", 222,
      {"kind": "grpo", "lr": 2e-4, "beta": 0.1, "max_steps": 60}),
    S("trl_dpo_json_truncated", "hf", "trl_json", False, ["S-completions-clipped", "L9"],
      "DPOConfig(max_length=12) (meant 128): prompt plus completion is cut at 12 tokens, which removes the answer "
      "digits, so chosen and rejected are mostly identical after truncation and the margin cannot grow",
      LLAMA + " + DPOTrainer", 223, {"kind": "dpo", "lr": 1e-3, "beta": 0.1, "max_steps": 80, "warmup": 5,
                                      "max_length": 12}),
    S("trl_grpo_json_firstonly", "hf", "trl_json", False, ["S-reward-std-zero"],
      "reward function scores completions[0] for every completion of the batch (loop variable shadowed): all "
      "completions of a group get the same reward, std 0, no advantage",
      LLAMA + " + GRPOTrainer", 224, {"kind": "grpo", "lr": 2e-4, "beta": 0.1, "max_steps": 60}, bug="first_only"),
]

MLP = "MLP 16-64-64-4 (LightningModule)"
CNNM = "CNN (2 conv + BN) (LightningModule)"
SPECS += [
    S("lit_csv_earlystop", "lit", "lit_csv", True, [], "healthy control", "MLP 16-128-128-4 (LightningModule)", 301,
      {"task": "tab", "lr": 3e-3, "epochs": 60, "early_stop": 4, "n": 700, "noise": 0.15, "hidden": 128,
       "dropout": 0.0}),
    S("lit_tb_warmrestarts", "lit", "lit_tb", True, [], "healthy control", CNNM, 302,
      {"task": "img", "lr": 3e-3, "epochs": 8, "sched": "warm_restarts"}),
    S("lit_printed_plain", "lit", "lit_printed", True, [], "healthy control", MLP, 303,
      {"task": "tab", "lr": 2e-3, "epochs": 10}),
    S("lit_csv_shuffledlabels", "lit", "lit_csv", False, ["DP-labels-misaligned"],
      "training labels taken from a second export with a different row order (permuted against the inputs); "
      "validation labels correct", MLP, 311, {"task": "tab", "lr": 2e-3, "epochs": 15}, bug="shuffled_labels"),
    S("lit_csv_purebf16", "lit", "lit_csv", False, ["S-bf16-accumulation", "S-bf16-precision"],
      "model.to(torch.bfloat16) before fit (pure bf16 weights, no fp32 master copy) with AdamW lr 1e-4: most "
      "updates round away", MLP, 312, {"task": "tab", "lr": 1e-4, "epochs": 15}, bug="pure_bf16"),
    S("lit_tb_cosine_per_step", "lit", "lit_tb", False, ["O8"],
      "CosineAnnealingLR(T_max=10) meant per epoch but registered with interval='step': the LR swings from "
      "max to 0 and back every 20 batches", CNNM, 313,
      {"task": "img", "lr": 3e-3, "epochs": 8, "sched": "cosine_step", "t_max": 10}, bug="cosine_step"),
    S("lit_printed_onecycle_crash", "lit", "lit_printed", False, ["O8"],
      "OneCycleLR(steps_per_epoch=len(train)//batch) while the DataLoader keeps the last partial batch: the "
      "scheduler runs past its total steps and raises ValueError in the last epoch", MLP, 314,
      {"task": "tab", "lr": 5e-3, "epochs": 6, "sched": "onecycle", "n": 2200}, bug="onecycle_short"),
]

SPECS += [
    S("sb3_ppo_csv", "sb3", "sb3_csv", True, [], "healthy control", "SB3 PPO MlpPolicy, CartPole-v1", 401,
      {"algo": "PPO", "steps": 20000, "kw": {"n_steps": 512, "batch_size": 64}}),
    S("sb3_a2c_stdout", "sb3", "sb3_stdout", True, [], "healthy control", "SB3 A2C MlpPolicy, CartPole-v1", 402,
      {"algo": "A2C", "steps": 25000, "log_interval": 100}),
    S("sb3_dqn_csv_nolearn", "sb3", "sb3_csv", False, ["O4", "S-plateau"],
      "DQN learning_starts=50000 (meant 5000) with total_timesteps=30000: no gradient step ever runs, the agent "
      "only acts (epsilon decays on an untrained Q-net)", "SB3 DQN MlpPolicy, CartPole-v1", 411,
      {"algo": "DQN", "steps": 30000, "kw": {"learning_starts": 50000, "exploration_fraction": 0.3}}),
    S("sb3_ppo_tb_overepochs", "sb3", "sb3_tb", False, ["S-clip-ratio-high", "S-lr-too-high", "R2"],
      "PPO n_epochs=60 and learning_rate 3e-3 (meant 10 and 3e-4): every rollout is over-optimised, approx_kl "
      "and clip_fraction are far above normal and the return collapses", "SB3 PPO MlpPolicy, CartPole-v1", 412,
      {"algo": "PPO", "steps": 20000, "kw": {"n_steps": 512, "batch_size": 64, "n_epochs": 60,
                                             "learning_rate": 3e-3}}),
    S("keras_csv_plateau", "keras", "keras_csv", True, [], "healthy control", "Keras Sequential MLP 16-64-64-4", 501,
      {"lr": 2e-3, "epochs": 25, "plateau": True, "noise": 0.1}),
    S("keras_printed_earlystop", "keras", "keras_printed", True, [], "healthy control",
      "Keras Sequential MLP 16-64-64-4", 502, {"lr": 3e-3, "epochs": 60, "early_stop": 4, "noise": 0.2, "n": 900,
                                               "dropout": 0.0}),
    S("keras_csv_highlr", "keras", "keras_csv", False, ["S-lr-too-high"],
      "Adam(learning_rate=0.3) (meant 3e-3)", "Keras Sequential MLP 16-64-64-4", 511, {"lr": 0.3, "epochs": 20}),
    S("keras_printed_bce_multiclass", "keras", "keras_printed", False, ["PB-loss-metric-mismatch", "O14"],
      "4-class softmax model compiled with loss='binary_crossentropy' and metrics=['accuracy'] on one-hot "
      "labels: Keras picks binary accuracy over the 4 outputs, which reads ~0.75 for a model that knows nothing",
      "Keras Sequential MLP 16-64-64-4", 512, {"lr": 1e-3, "epochs": 15, "verbose": 2}, bug="bce_multiclass"),
    S("keras_printed_onehot_sparse", "keras", "keras_printed", False, ["O14", "S-target-size-mismatch"],
      "labels one-hot encoded for a model compiled with sparse_categorical_crossentropy: fit fails on the "
      "first batch", "Keras Sequential MLP 16-64-64-4", 513, {"lr": 1e-3, "epochs": 10}, bug="onehot_sparse"),
    S("sk_mlp_earlystop", "sklearn", "sklearn_printed", True, [], "healthy control",
      "sklearn MLPClassifier(64, 64)", 601,
      {"kw": {"early_stopping": True, "max_iter": 200, "learning_rate_init": 1e-3, "n_iter_no_change": 8},
       "noise": 0.15}),
    S("sk_mlp_sgd_highlr", "sklearn", "sklearn_printed", False, ["S-lr-too-high"],
      "solver='sgd', learning_rate_init=2.0, momentum 0.9 (meant 0.02)", "sklearn MLPClassifier(64, 64)", 611,
      {"kw": {"solver": "sgd", "learning_rate_init": 2.0, "momentum": 0.9, "max_iter": 60}}),
    S("sk_mlp_alpha", "sklearn", "sklearn_printed", False, ["S-weight-decay-high", "S-plateau"],
      "alpha=5.0 (L2 penalty, meant 1e-4): weights pinned near zero, the model underfits and the loss plateaus "
      "high", "sklearn MLPClassifier(64, 64)", 612,
      {"kw": {"alpha": 5.0, "max_iter": 80, "learning_rate_init": 1e-3}}),
]
