"""corpus_gen7 generator: ~60 small runs, really trained on CPU, each labelled from its spec BEFORE training.

Usage: /work/main/.venv/bin/python bench/corpus_gen7/generate.py [--only name1,name2] [--skip-existing]
"""
import argparse
import json
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
import torch  # noqa: E402

torch.set_num_threads(1)

import fam_graph_seq as G  # noqa: E402
import fam_text_rl as T  # noqa: E402
import fam_mlp_cnn as M  # noqa: E402
import fam_frameworks as FW  # noqa: E402


def H(name, fmt, model, fn, seed, fault, **kw):
    return dict(name=name, format=fmt, model=model, fn=fn, seed=seed, healthy=True, causes=[], fault=fault, **kw)


def B(name, fmt, model, fn, seed, fault, causes, **kw):
    return dict(name=name, format=fmt, model=model, fn=fn, seed=seed, healthy=False, causes=causes, fault=fault, **kw)


SPECS = [
    # ---------------------------------------------------------------- healthy
    H("h_gcn_sgdr", "printed_pipe", "gcn", G.run_gcn, 701,
      "healthy: GCN on an SBM graph, Adam 0.01, CosineAnnealingWarmRestarts(T_0=50): loss bumps at each restart", sgdr=True, epochs=200),
    H("h_gcn_heavy_dropout", "jsonl", "gcn", G.run_gcn, 702,
      "healthy: GCN with dropout 0.6 on features and hidden: train loss (dropout on) stays above val loss", dropout=0.6, epochs=200),
    H("h_ctc_long_warmup", "printed_logging", "ctc-bigru", G.run_ctc, 703,
      "healthy: Conv+BiGRU CTC on synthetic 1-D token signals, AdamW 5e-3 with a 120-step linear warmup (~ half the run), 12 epochs", warmup=120, epochs=12),
    H("h_ctc_short", "mlflow", "ctc-bigru", G.run_ctc, 704,
      "healthy: short run: CTC model, AdamW 5e-3, 5 epochs (still improving at the end)", epochs=5),
    H("h_s2s_onecycle", "printed_keras", "seq2seq-transformer", G.run_s2s, 705,
      "healthy: tiny seq2seq transformer on a toy reverse-and-map translation task, OneCycleLR max 2e-3, 8 epochs", epochs=8),
    H("h_clip_dual", "printed_it", "clip-dual-encoder", G.run_clip, 706,
      "healthy: CLIP-style dual MLP encoders, InfoNCE with learnable temperature, AdamW 1e-3, 12 epochs", epochs=12),
    H("h_ddpm_2d", "printed_table", "ddpm-mlp", G.run_ddpm, 707,
      "healthy: DDPM noise-prediction MLP on an 8-gaussian ring, T=100, Adam 2e-3, 15 epochs", epochs=15),
    H("h_mf_recsys", "csv", "matrix-factorisation", G.run_mf, 708,
      "healthy: matrix factorisation (rank 16 + biases) on synthetic ratings, L2 penalty 0.05 on the looked-up factors, AdamW 1e-2, 20 epochs", epochs=20),
    H("h_mlm_bert", "hf_state", "bert-mlm", FW.run_hf_mlm, 709,
      "healthy: tiny BERT masked LM (HF Trainer), 15% masking, lr 1e-3, warmup 40, linear decay, 4 epochs", epochs=4),
    H("h_textcnn_ls", "printed_brackets", "text-cnn", T.run_textcnn, 710,
      "healthy: text CNN sentiment classifier with label_smoothing=0.1 (loss floor well above 0), Adam 1e-3, 10 epochs",
      label_smoothing=0.1, epochs=10),
    H("h_tagger_val_up", "lightning_csv", "bigru-tagger", FW.run_l_tagger, 711,
      "healthy: BiGRU token tagger on 150 sentences, 15% noisy tags in train and val, Adam 3e-3, 20 epochs: val loss turns up a little late while val F1 holds",
      n_train=150, label_noise=0.15, epochs=20, log_every=5),
    H("h_moe", "printed_dict", "moe-mlp", T.run_moe, 712,
      "healthy: top-1 MoE (4 experts) classifier, load-balancing aux loss x0.01 logged separately, AdamW 2e-3, 10 epochs", epochs=10),
    H("h_ppo_corridor", "jsonl", "ppo-mlp", T.run_ppo, 713,
      "healthy: PPO on a slippery 1-D corridor (own env), Adam 1e-3, clip 0.2, ent 0.01: noisy but rising return", iters=40),
    H("h_a2c_corridor", "mlflow", "actor-critic-mlp", T.run_pg, 714,
      "healthy: advantage actor-critic on the corridor, returns discounted (0.97), advantages centred, Adam 2e-3", iters=80),
    H("h_ae_anomaly", "printed_logging", "anomaly-autoencoder", T.run_ae, 715,
      "healthy: MLP autoencoder trained on normal sinusoid windows, anomaly score = reconstruction error, 15 epochs", epochs=15),
    H("h_gan_ring", "csv", "gan-mlp", T.run_gan, 716,
      "healthy: GAN on the 8-gaussian ring, Adam 1e-3 betas (0.5,0.999): d/g losses oscillate while samples improve", iters=2500),
    H("h_mlp_phase_change", "printed_tqdm", "mlp-cls", M.run_mlp_cls, 717,
      "healthy: tanh MLP (init std 0.05), SGD momentum 0.9 lr 0.1, XOR of two features among 10: loss sits at ln2 for many epochs, then drops",
      kind="xor", lr=0.1, opt="sgd", epochs=80, batch=64),
    H("h_mlp_class_weight", "printed_epochstep", "mlp-cls", M.run_mlp_cls, 718,
      "healthy: 60/25/10/5 imbalanced 4-class MLP with an inverse-frequency class-weighted CrossEntropyLoss, Adam 1e-3",
      kind="imbalanced", epochs=15, step_every=25),
    H("h_mlp_early_stop", "printed_batchline", "mlp-cls", M.run_mlp_cls, 719,
      "healthy: MLP on 300 noisy rows, early stopping (patience 5) on val loss after it turns up, best weights restored",
      kind="small_noisy", hidden=256, epochs=100, patience=5, batch=32, step_every=3),
    H("h_mlp_sum_loss", "printed_epochstep", "mlp-reg", M.run_mlp_reg, 720,
      "healthy: MLP regression of a known function, MSELoss(reduction='sum') per batch of 32 logged as is (large values), Adam 1e-3",
      sum_loss=True, epochs=15),
    H("h_mlp_fp16_scaler", "printed_it", "mlp-cls", M.run_fp16, 721,
      "healthy: fp16 autocast + GradScaler(init_scale 2**24): a few overflow skips early, scale drops then settles", epochs=6),
    H("h_cnn_noisy_val", "csv", "cnn-bn", M.run_cnn, 722,
      "healthy: CNN+BN on 16x16 shapes, AdamW 1e-3, a 48-image validation set evaluated every 10 steps (val acc jumps)",
      n_val=48, eval_every=10, epochs=6),
    H("h_cnn_mixup", "lightning_csv", "cnn-bn", FW.run_l_cnn_mixup, 723,
      "healthy: CNN+BN with strong augmentation, mixup 0.4 and dropout 0.3, AdamW 3e-3 cosine: train loss above val loss, train acc below val acc",
      epochs=15),
    H("h_cnn_short", "printed_keras", "cnn-bn", M.run_cnn, 724,
      "healthy: short run: CNN+BN, SGD momentum 0.9 lr 0.02, 3 epochs", opt="sgd", lr=0.02, epochs=3),
    H("h_resnet_cyclic", "mlflow", "resnet-small", M.run_cnn, 725,
      "healthy: small ResNet-style net, SGD momentum 0.9, CyclicLR triangular 0.0025..0.05 (2-epoch half cycles), 8 epochs",
      arch="resnet", opt="sgd", lr=0.05, cyclic=True, epochs=8, step_every=10),
    H("h_gru_clip_active", "printed_dict", "gru-lm", T.run_gru_lm, 726,
      "healthy: GRU char LM, Adam 3e-3, clip_grad_norm 0.05 active at every step (pre-clip norm well above it but steady)",
      clip=0.05, steps=400),
    H("h_gpt2_cosine", "hf_state", "gpt2-lm", FW.run_hf_gpt2, 727,
      "healthy: tiny GPT-2 char LM (HF Trainer), lr 2e-3, warmup 30, cosine, 3 epochs", epochs=3),
    H("h_bert_finetune", "hf_state", "bert-cls", FW.run_hf_bert_cls, 728,
      "healthy: fine-tune (lr 2e-4, warmup 8, linear decay) of a tiny BERT classifier pretrained on the same task: starts high, gains little",
      pretrain=True, lr=2e-4, epochs=2, n_train=800),
    H("h_lstm_forecast", "printed_table", "lstm-forecast", M.run_forecast, 729,
      "healthy: LSTM forecaster on noisy sinusoids, chronological split, AdamW 3e-3, clip 1.0, 10 epochs", epochs=10),
    H("h_llama_cosine", "printed_tqdm", "llama-lm", M.run_hf_lm_loop, 730,
      "healthy: tiny LLaMA-style char LM (own loop), AdamW 2e-3, warmup 30 + cosine, 300 steps", arch="llama", steps=300, epochs=6),
    # ---------------------------------------------------------------- faulty
    B("f_gcn_eval_train_mask", "printed_pipe", "gcn", G.run_gcn, 801,
      "validation metrics computed on the training-node mask (val_idx = train_idx): val loss/acc mirror training",
      ["S-verify-experiment", "PB-leaky-split"], bug="evalmask", epochs=200),
    B("f_gcn_dropout09", "printed_brackets", "gcn", G.run_gcn, 802,
      "dropout 0.9 (meant 0.1) on the GCN input features and hidden layer: underfits", ["S-plateau", "PB-optimizer-defaults"],
      dropout=0.9, epochs=200),
    B("f_ctc_blank_collision", "printed_logging", "ctc-bigru", G.run_ctc, 803,
      "token ids written 0..K-1 while CTCLoss keeps blank=0: the first real token is the blank", ["PB-ctc-blank", "DP-label-mapping"],
      bug="blank_collision", epochs=12),
    B("f_ctc_input_lengths", "printed_batchline", "ctc-bigru", G.run_ctc, 804,
      "CTC input_lengths filled from the target lengths: the loss aligns each target to only its first len(target) frames",
      ["S-target-size-mismatch", "O1"], bug="lengths", epochs=8),
    B("f_s2s_no_causal_mask", "printed_keras", "seq2seq-transformer", G.run_s2s, 805,
      "decoder trained without the causal tgt_mask: teacher-forced loss sees the answer, greedy decoding fails",
      ["O1", "PB-loss-metric-mismatch"], bug="nocausal", epochs=8),
    B("f_textcnn_adam_eps1", "printed_brackets", "text-cnn", T.run_textcnn, 806,
      "Adam(eps=1.0) (meant 1e-8): the step is divided by ~1, effective LR tiny", ["S-lr-too-low", "O7", "PB-optimizer-defaults"],
      adam_eps=1.0, epochs=10),
    B("f_clip_labels_zero", "printed_it", "clip-dual-encoder", G.run_clip, 807,
      "contrastive targets torch.zeros(B) instead of torch.arange(B): every row's positive is column 0",
      ["O14", "PB-loss-metric-mismatch"], bug="labels_zero", epochs=12),
    B("f_clip_temp_inverted", "jsonl", "clip-dual-encoder", G.run_clip, 808,
      "similarities multiplied by the temperature (0.07) instead of divided by it: logits in [-0.07, 0.07], loss stuck near ln(B)",
      ["S-plateau", "O1"], bug="temp_inverted", epochs=12),
    B("f_ddpm_no_timestep", "printed_table", "ddpm-mlp", G.run_ddpm, 809,
      "timestep embedding never passed to the denoiser (zeros): it cannot know the noise level", ["O1", "S-plateau", "DF1"],
      bug="no_timestep", epochs=15),
    B("f_mf_eval_swapped", "csv", "matrix-factorisation", G.run_mf, 810,
      "validation batch built as (item, user) instead of (user, item): val RMSE does not follow training",
      ["DP-labels-misaligned", "DP-label-mapping"], bug="swap_eval", epochs=20),
    B("f_mf_weight_decay1", "printed_tqdm", "matrix-factorisation", G.run_mf, 811,
      "AdamW weight_decay=1.0 (meant 1e-4) with lr 1e-2 on the embeddings: factors shrink to 0, predictions = biases",
      ["S-weight-decay-high", "O6", "S-plateau"], weight_decay=1.0, epochs=20),
    B("f_mlm_labels_all_tokens", "hf_state", "bert-mlm", FW.run_hf_mlm, 812,
      "MLM labels keep every real token (only padding set to -100): the loss is mostly copying visible tokens",
      ["PB-loss-metric-mismatch", "O1", "L7"], bug="labels_all", epochs=4),
    B("f_tagger_shifted_tags", "lightning_csv", "bigru-tagger", FW.run_l_tagger, 813,
      "training tags aligned one token late ([0] + tags[:-1]); validation tags correct", ["DP-labels-misaligned"],
      bug="shift", epochs=10),
    B("f_moe_aux_coef100", "printed_dict", "moe-mlp", T.run_moe, 814,
      "load-balancing aux loss coefficient 100 (meant 0.01): balancing swamps the task loss",
      ["PB-multi-loss-weights", "S-plateau"], aux_coef=100.0, epochs=10),
    B("f_ppo_entropy_coef1", "jsonl", "ppo-mlp", T.run_ppo, 815,
      "PPO ent_coef 1.0 (meant 0.01): the entropy bonus dominates, the policy stays uniform",
      ["PB-multi-loss-weights", "S-plateau"], ent_coef=1.0, iters=40),
    B("f_reinforce_raw_returns", "mlflow", "actor-critic-mlp", T.run_pg, 816,
      "policy gradient with undiscounted returns-to-go, no baseline and no centring (value head trained but unused)",
      ["R3"], bug="raw_returns", iters=80),
    B("f_ae_auroc_flipped", "printed_pipe", "anomaly-autoencoder", T.run_ae, 817,
      "AUROC computed from -reconstruction_error (score sign flipped): the metric falls as the model improves",
      ["PB-metric-scores", "PB-loss-metric-mismatch"], bug="auroc_flipped", epochs=15),
    B("f_gan_label_flip", "printed_epochstep", "gan-mlp", T.run_gan, 818,
      "D trained with real=0 / fake=1 while G's loss still targets 1: G pushes samples toward 'fake'",
      ["S-gan-d-wins", "O1"], bug="label_flip", iters=2500),
    B("f_cnn_val_not_scaled", "printed_keras", "cnn-bn", M.run_cnn, 819,
      "validation transform forgets the /255 before normalising (train does it): val inputs ~255x too large",
      ["V1"], bug="val_norm", epochs=6),
    B("f_cnn_eval_augment", "printed_table", "cnn-bn", M.run_cnn, 820,
      "strong training augmentation (shift, flip, noise, random erase) also applied to the validation images",
      ["V2"], bug="eval_aug", aug="strong", epochs=8),
    B("f_mlp_label_smoothing09", "printed_tqdm", "mlp-cls", M.run_mlp_cls, 821,
      "CrossEntropyLoss(label_smoothing=0.9) (meant 0.1) on a 4-class task: targets nearly uniform",
      ["PB-loss-metric-mismatch", "PB-optimizer-defaults"], kind="blobs", label_smoothing=0.9, epochs=15),
    B("f_mlp_freq_class_weight", "printed_epochstep", "mlp-cls", M.run_mlp_cls, 822,
      "class weights proportional to class frequency (meant inverse) on 60/25/10/5 data: minority classes ignored",
      ["V6"], kind="imbalanced", bug="freq_weight", epochs=15, step_every=25),
    B("f_multilabel_sigmoid_twice", "printed_batchline", "mlp-multilabel", M.run_mlp_cls, 823,
      "multi-label model ends in nn.Sigmoid and is trained with BCEWithLogitsLoss (sigmoid applied twice)",
      ["O13", "O12", "S-plateau"], kind="multilabel", bug="sigmoid_twice", epochs=15, step_every=10),
    B("f_onecycle_total_steps", "printed_logging", "mlp-cls", M.run_mlp_cls, 824,
      "OneCycleLR(total_steps=epochs=30) stepped every batch (37/epoch): the scheduler raises after 30 steps",
      ["O8"], kind="blobs", onecycle_total=30, epochs=30, lr=3e-3, step_every=5),
    B("f_gru_lm_unshifted", "printed_dict", "gru-lm", T.run_gru_lm, 825,
      "char-LM targets are the inputs (not shifted by one): the model learns to copy, loss near 0 at once",
      ["O1", "S-verify-experiment", "PB-loss-metric-mismatch"], bug="unshifted", steps=400),
    B("f_gpt2_eval_sum", "printed_it", "gpt2-lm", M.run_hf_lm_loop, 826,
      "eval loop sums the loss over its 8 batches without dividing: eval loss 8x train, perplexity absurd",
      ["L7", "S-verify-experiment"], arch="gpt2", bug="eval_nodiv", steps=300),
    B("f_bert_encoder_nograd", "lightning_csv", "bert-cls", FW.run_l_bert_cls, 827,
      "encoder forward wrapped in torch.no_grad() (from an inference helper): only the linear head trains on random features",
      ["O3", "O1", "S-plateau"], bug="nograd", epochs=6),
    B("f_resnet_plateau_max", "printed_pipe", "resnet-small", M.run_cnn, 828,
      "ReduceLROnPlateau(mode='max', patience=0) on val_loss: every improvement counts as none, LR halves each epoch",
      ["O8", "S-lr-too-low"], arch="resnet", opt="sgd", lr=0.05, plateau_mode="max", epochs=10),
    B("f_cnn_mixup_unmixed_targets", "printed_brackets", "cnn-bn", M.run_cnn, 829,
      "mixup mixes the images but the loss uses only the first image's labels (targets not mixed)",
      ["DP-labels-misaligned", "O1"], bug="mixup_labels", mixup=True, aug="light", epochs=8),
    B("f_mlp_reg_broadcast", "printed_batchline", "mlp-reg", M.run_mlp_reg, 830,
      "MSELoss(pred of shape (B,1), target of shape (B,)): broadcasts to (B,B), the model learns the mean",
      ["S-target-size-mismatch", "S-plateau"], bug="broadcast", epochs=15),
]


def label_of(s):
    return {"healthy": s["healthy"], "causes": s["causes"], "fault": s["fault"], "format": s["format"], "model": s["model"],
            "seed": s["seed"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--skip-existing", action="store_true")
    a = ap.parse_args()
    only = set(x for x in a.only.split(",") if x)
    root = os.path.join(HERE, "runs")
    os.makedirs(root, exist_ok=True)
    times = {}
    tp = os.path.join(HERE, "timings.json")
    if os.path.exists(tp):
        times = json.load(open(tp))
    for s in SPECS:
        if only and s["name"] not in only:
            continue
        d = os.path.join(root, s["name"])
        if a.skip_existing and os.path.exists(os.path.join(d, "label.json")) and s["name"] in times:
            continue
        shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
        with open(os.path.join(d, "label.json"), "w") as f:  # label written from the spec before training
            json.dump(label_of(s), f, indent=1)
        spec = {k: v for k, v in s.items() if k != "fn"}
        t0 = time.time()
        try:
            s["fn"](spec, d)
            status = "ok"
        except Exception:
            status = "error"
            traceback.print_exc()
        times[s["name"]] = round(time.time() - t0, 1)
        print(f"{s['name']:32s} {status} {times[s['name']]:6.1f}s", flush=True)
        json.dump(times, open(tp, "w"), indent=1)


if __name__ == "__main__":
    main()
