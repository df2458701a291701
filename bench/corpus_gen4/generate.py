"""corpus_gen4: small, really-trained runs, healthy and with injected bugs. Labels are written from each run's
spec before it trains.

    /work/main/.venv/bin/python bench/corpus_gen4/generate.py            # all runs not yet made
    /work/main/.venv/bin/python bench/corpus_gen4/generate.py NAME ...   # (re)make these runs
"""
import json
import os
import shutil
import sys
import time
import traceback
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import data as D  # noqa: E402
import engine as E  # noqa: E402
from loggers import STYLES  # noqa: E402

warnings.filterwarnings("ignore")
torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
SPECS = []


def run(name, *, healthy, fmt, model, seed, fault="", causes=()):
    def deco(fn):
        SPECS.append(dict(name=name, healthy=healthy, causes=list(causes), fault=fault if not healthy else
                          "healthy: " + fault, format=fmt, model=model, seed=seed, fn=fn))
        return fn
    return deco


def split(x, y, n_val):
    return x[:-n_val], y[:-n_val], x[-n_val:], y[-n_val:]


def ce(out, y):
    return F.cross_entropy(out, y)


def mse(out, y):
    return F.mse_loss(out.squeeze(-1), y)


def plain(rd, fmt, seed, model, data, params=None, **kw):
    lg = STYLES[fmt](rd, {"params": params or {}})
    return E.fit(model, data, logger=lg, seed=seed, **kw)


# ============================================================================ healthy runs
@run("h01_mlp_blobs_adamw", healthy=True, fmt="printed_pipe", model="mlp-cls", seed=11,
     fault="AdamW 1e-3, batch 64, 20 epochs")
def h01(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    return plain(rd, fmt, seed, m, split(*D.blobs(2500, seed=seed), 500), epochs=20, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=ce, kind="cls", log_every=20)


@run("h02_cnn_shapes_sgd_cosine", healthy=True, fmt="lightning_csv", model="cnn-bn", seed=12,
     fault="SGD momentum 0.9 lr 0.05, cosine per epoch, 8 epochs")
def h02(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.CNNBN()

    def mk(mod):
        o = torch.optim.SGD(mod.parameters(), lr=0.05, momentum=0.9)
        return {"optimizer": o, "lr_scheduler": torch.optim.lr_scheduler.CosineAnnealingLR(o, 8)}
    return E.fit_lightning(rd, m, split(*D.shapes16(1600, seed=seed), 400), epochs=8, bs=32, kind="cls",
                           loss_fn=ce, make_opt=mk, hparams={"lr": 0.05, "momentum": 0.9, "bs": 32}, seed=seed)


@run("h03_gru_lm_chars", healthy=True, fmt="jsonl", model="gru-lm", seed=13,
     fault="char-level GRU LM, AdamW 3e-3, 6 epochs, clip 1.0")
def h03(rd, fmt, seed):
    torch.manual_seed(seed)
    x, y = D.lm_blocks(D.char_stream(900, seed), 48)
    m = D.CharGRU(D.VOCAB)
    return plain(rd, fmt, seed, m, split(x, y, 80), epochs=6, bs=32, clip=1.0,
                 opt=torch.optim.AdamW(m.parameters(), 3e-3), kind="lm", log_every=10,
                 loss_fn=lambda o, t: F.cross_entropy(o.reshape(-1, o.shape[-1]), t.reshape(-1)))


def bert_model(seed, **cfg):
    from transformers import BertConfig, BertForSequenceClassification
    torch.manual_seed(seed)
    c = dict(vocab_size=D.VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
             max_position_embeddings=64, num_labels=2, pad_token_id=0)
    c.update(cfg)
    return BertForSequenceClassification(BertConfig(**c))


def review_ds(n, seed, length=48, truncate=None, remap=None):
    ids, ys = D.review_texts(n, seed, length)
    if truncate:
        ids = ids[:, :truncate]
    if remap is not None:
        ids = remap(ids)
    return E.DictDataset(input_ids=ids, attention_mask=(ids != 0).long(), labels=ys)


@run("h04_bert_reviews_hf", healthy=True, fmt="hf_state", model="bert-tiny-cls", seed=14,
     fault="tiny BERT from config, lr 1e-3, warmup 30 steps, linear decay, 3 epochs")
def h04(rd, fmt, seed):
    return E.fit_hf(rd, bert_model(seed), review_ds(2400, seed), review_ds(300, seed + 100),
                    dict(learning_rate=1e-3, per_device_train_batch_size=32, num_train_epochs=3, warmup_steps=30,
                         weight_decay=0.01, per_device_eval_batch_size=100), E.acc_metric, seed)


def lm_ds(seed, block=64, n_sent=1400):
    s = D.char_stream(n_sent, seed)
    x, _ = D.lm_blocks(s, block)
    return E.DictDataset(input_ids=x, attention_mask=torch.ones_like(x), labels=x.clone())


def gpt2_model(seed, **cfg):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(seed)
    c = dict(vocab_size=D.VOCAB, n_positions=64, n_embd=64, n_layer=2, n_head=4, bos_token_id=1, eos_token_id=1)
    c.update(cfg)
    return GPT2LMHeadModel(GPT2Config(**c))


def llama_model(seed, **cfg):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(seed)
    c = dict(vocab_size=D.VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=64, pad_token_id=0, bos_token_id=1, eos_token_id=1)
    c.update(cfg)
    return LlamaForCausalLM(LlamaConfig(**c))


@run("h05_gpt2_chars_hf", healthy=True, fmt="hf_state", model="gpt2-tiny-lm", seed=15,
     fault="tiny GPT-2 char LM, lr 2e-3, cosine, warmup 20 steps")
def h05(rd, fmt, seed):
    return E.fit_hf(rd, gpt2_model(seed), lm_ds(seed), lm_ds(seed + 100, n_sent=150),
                    dict(learning_rate=2e-3, per_device_train_batch_size=16, num_train_epochs=2, warmup_steps=20,
                         lr_scheduler_type="cosine", max_grad_norm=1.0), None, seed)


@run("h06_mlp_reg_short", healthy=True, fmt="printed_dict", model="mlp-reg", seed=16,
     fault="short run: 3 epochs of regression, AdamW 2e-3 (loss still falling at the end)")
def h06(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(8, 1, 64, 2)
    return plain(rd, fmt, seed, m, split(*D.regression(1200, seed=seed), 200), epochs=3, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 2e-3), loss_fn=mse, kind="reg")


@run("h07_mlp_blobs_labelnoise_plateau", healthy=True, fmt="csv", model="mlp-cls", seed=17,
     fault="30% label noise: loss plateaus well above 0 after real learning, AdamW 1e-3")
def h07(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    x, y = D.blobs(2500, seed=seed, label_noise=0.3)
    return plain(rd, fmt, seed, m, split(x, y, 500), epochs=25, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=ce, kind="cls")


@run("h08_mlp_reg_bs4_noisy", healthy=True, fmt="printed_batch", model="mlp-reg", seed=18,
     fault="noisy small-batch regression: batch 4, AdamW 3e-4, 4 epochs")
def h08(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(8, 1, 64, 2)
    return plain(rd, fmt, seed, m, split(*D.regression(1000, seed=seed, noise=0.3), 200), epochs=4, bs=4,
                 opt=torch.optim.AdamW(m.parameters(), 3e-4), loss_fn=mse, kind="reg", log_every=25)


@run("h09_mlp_finetune_starts_low", healthy=True, fmt="printed_logging", model="mlp-cls", seed=19,
     fault="fine-tune (AdamW 1e-4) of an MLP pretrained on similar blobs: loss starts low, improves a little")
def h09(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    x, y = D.blobs(3000, seed=seed)
    pre = torch.optim.AdamW(m.parameters(), 1e-3)
    for _ in range(8):  # pretraining (not logged: another script)
        for i in range(0, 1500, 64):
            pre.zero_grad()
            F.cross_entropy(m(x[i:i + 64]), y[i:i + 64]).backward()
            pre.step()
    x2 = x[1500:] + 0.15 * torch.randn(1500, 20)  # the fine-tune data: same task, shifted measurements
    return plain(rd, fmt, seed, m, split(x2, y[1500:], 300), epochs=6, bs=32,
                 opt=torch.optim.AdamW(m.parameters(), 1e-4), loss_fn=ce, kind="cls", log_every=20)


@run("h10_cnn_noisy_shapes_evalloss_drifts", healthy=True, fmt="mlflow", model="cnn-bn", seed=20,
     fault="hard shapes (pixel noise 1.0), 1000 images, AdamW 1e-3, 20 epochs: eval loss flattens and drifts up a "
           "little late while accuracy holds or creeps up")
def h10(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.CNNBN(width=8)
    x, y = D.shapes16(1600, seed=seed, noise=1.0)
    return plain(rd, fmt, seed, m, split(x, y, 600), epochs=20, bs=32, params={"lr": 1e-3, "bs": 32, "wd": 0.01},
                 opt=torch.optim.AdamW(m.parameters(), 1e-3, weight_decay=0.01), loss_fn=ce, kind="cls")


@run("h11_autoencoder_sinus", healthy=True, fmt="printed_keras", model="autoencoder", seed=21,
     fault="MLP autoencoder, tanh output on [-1,1] signals, AdamW 2e-3, 15 epochs")
def h11(rd, fmt, seed):
    torch.manual_seed(seed)
    x = D.sinus_vectors(2400, seed=seed)
    m = D.AutoEncoder(out_act="tanh")
    return plain(rd, fmt, seed, m, (x[:2000], x[:2000], x[2000:], x[2000:]), epochs=15, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 2e-3), loss_fn=F.mse_loss, kind="ae")


@run("h12_resnet_shapes_warmup", healthy=True, fmt="printed_tqdm", model="resnet-small", seed=22,
     fault="small ResNet, AdamW 1e-3, linear warmup 40 steps then constant, 5 epochs")
def h12(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.SmallResNet(c=12)
    o = torch.optim.AdamW(m.parameters(), 1e-3)
    s = torch.optim.lr_scheduler.LambdaLR(o, lambda k: min(1.0, (k + 1) / 40))
    return plain(rd, fmt, seed, m, split(*D.shapes16(1400, seed=seed), 300), epochs=5, bs=32, opt=o, sched=s,
                 sched_every="step", loss_fn=ce, kind="cls", log_every=5)


@run("h13_transformer_reviews_lightning", healthy=True, fmt="lightning_csv", model="transformer-enc-cls", seed=23,
     fault="tiny transformer encoder classifier, AdamW 1e-3, 6 epochs")
def h13(rd, fmt, seed):
    torch.manual_seed(seed)
    ids, ys = D.review_texts(2000, seed)
    m = D.TinyEncoderCls(D.VOCAB)
    return E.fit_lightning(rd, m, split(ids, ys, 400), epochs=6, bs=32, kind="cls", loss_fn=ce,
                           make_opt=lambda mod: torch.optim.AdamW(mod.parameters(), 1e-3),
                           hparams={"lr": 1e-3, "bs": 32, "d_model": 48}, seed=seed)


@run("h14_llama_chars_hf", healthy=True, fmt="hf_state", model="llama-tiny-lm", seed=24,
     fault="tiny LLaMA-style char LM, lr 2e-3, linear decay, warmup 20 steps")
def h14(rd, fmt, seed):
    return E.fit_hf(rd, llama_model(seed), lm_ds(seed), lm_ds(seed + 100, n_sent=150),
                    dict(learning_rate=2e-3, per_device_train_batch_size=16, num_train_epochs=2, warmup_steps=20,
                         max_grad_norm=1.0), None, seed)


@run("h15_gan_ring_balanced", healthy=True, fmt="printed_it", model="gan-mlp", seed=25,
     fault="GAN on a ring of 8 gaussians, Adam 2e-4 for both G and D")
def h15(rd, fmt, seed):
    lg = STYLES[fmt](rd, {})
    return E.fit_gan(D.ring_gaussians(4000, seed), logger=lg, steps=2500, bs=64, lr_g=2e-4, lr_d=2e-4, seed=seed)


@run("h16_lstm_sinus_cls_clip", healthy=True, fmt="printed_bracket", model="lstm-cls", seed=26,
     fault="LSTM frequency classifier on 50-step noisy sinusoids, AdamW 3e-3, clip 1.0, 20 epochs")
def h16(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.RNNClassifier(cell="lstm")
    return plain(rd, fmt, seed, m, split(*D.sinus_sequences(1500, seed=seed), 300), epochs=20, bs=32, clip=1.0,
                 opt=torch.optim.AdamW(m.parameters(), 3e-3), loss_fn=ce, kind="cls")


@run("h17_mlp_reg_sgd_step", healthy=True, fmt="mlflow", model="mlp-reg", seed=27,
     fault="regression, SGD momentum 0.9 lr 0.02, StepLR(10, 0.5) per epoch, 25 epochs")
def h17(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(8, 1, 64, 2)
    o = torch.optim.SGD(m.parameters(), lr=0.02, momentum=0.9)
    return plain(rd, fmt, seed, m, split(*D.regression(1500, seed=seed), 300), epochs=25, bs=32,
                 params={"lr": 0.02, "momentum": 0.9}, opt=o, sched=torch.optim.lr_scheduler.StepLR(o, 10, 0.5),
                 loss_fn=mse, kind="reg")


# ============================================================================ faulty runs
@run("f01_mlp_zero_init", healthy=False, fmt="printed_pipe", model="mlp-cls", seed=31,
     fault="every Linear weight and bias initialised to 0 (nn.init.zeros_): hidden units stay identical/dead",
     causes=["O1", "S-plateau", "S-vanishing-gradients"])
def f01(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    for mod in m.modules():
        if isinstance(mod, nn.Linear):
            nn.init.zeros_(mod.weight)
            nn.init.zeros_(mod.bias)
    return plain(rd, fmt, seed, m, split(*D.blobs(2500, seed=seed), 500), epochs=15, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=ce, kind="cls")


@run("f02_mlp_relu_on_logits", healthy=False, fmt="printed_table", model="mlp-cls", seed=32,
     fault="nn.ReLU() appended after the final Linear: logits clipped at 0 before cross-entropy",
     causes=["O1", "S-plateau", "O25"])
def f02(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    m.head = nn.Sequential(m.head, nn.ReLU())
    return plain(rd, fmt, seed, m, split(*D.blobs(2500, seed=seed), 500), epochs=12, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=ce, kind="cls")


@run("f03_bert_label_smoothing_09", healthy=False, fmt="hf_state", model="bert-tiny-cls", seed=33,
     fault="label_smoothing_factor=0.9 (meant 0.1): loss cannot fall much below ln 2",
     causes=["PB-loss-metric-mismatch", "S-plateau"])
def f03(rd, fmt, seed):
    return E.fit_hf(rd, bert_model(seed), review_ds(2400, seed), review_ds(300, seed + 100),
                    dict(learning_rate=1e-3, per_device_train_batch_size=32, num_train_epochs=3, warmup_steps=30,
                         label_smoothing_factor=0.9, per_device_eval_batch_size=100), E.acc_metric, seed)


@run("f04_gpt2_adam_eps_1", healthy=False, fmt="hf_state", model="gpt2-tiny-lm", seed=34,
     fault="adam_epsilon=1.0 (meant 1e-8): every AdamW step is divided by ~1, the effective LR is tiny",
     causes=["S-lr-too-low", "O7", "PB-optimizer-defaults"])
def f04(rd, fmt, seed):
    return E.fit_hf(rd, gpt2_model(seed), lm_ds(seed), lm_ds(seed + 100, n_sent=150),
                    dict(learning_rate=2e-3, per_device_train_batch_size=16, num_train_epochs=2, warmup_steps=20,
                         lr_scheduler_type="cosine", adam_epsilon=1.0), None, seed)


@run("f05_cnn_adam_betas_zero", healthy=False, fmt="lightning_csv", model="cnn-bn", seed=35,
     fault="Adam(betas=(0.0, 0.0)) at lr 3e-3: sign-like updates with no averaging",
     causes=["PB-optimizer-defaults", "S-gradnorm-unstable", "S-spike"])
def f05(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.CNNBN()
    return E.fit_lightning(rd, m, split(*D.shapes16(1600, seed=seed), 400), epochs=8, bs=32, kind="cls", loss_fn=ce,
                           make_opt=lambda mod: torch.optim.Adam(mod.parameters(), 3e-3, betas=(0.0, 0.0)),
                           hparams={"lr": 3e-3, "betas": [0.0, 0.0]}, seed=seed)


@run("f06_gru_encoder_detached", healthy=False, fmt="jsonl", model="gru-cls", seed=36,
     fault="encoder output .detach()ed before the head: only the linear head trains, the GRU stays random",
     causes=["O3", "S-plateau", "O1"])
def f06(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.RNNClassifier(cell="gru", detach_encoder=True)
    return plain(rd, fmt, seed, m, split(*D.sinus_sequences(1500, seed=seed), 300), epochs=10, bs=32, clip=1.0,
                 opt=torch.optim.AdamW(m.parameters(), 3e-3), loss_fn=ce, kind="cls")


@run("f07_mlp_opt_last_layer_only", healthy=False, fmt="printed_logging", model="mlp-reg", seed=37,
     fault="optimizer built over model.head.parameters() only, model trained from scratch: hidden layers stay random",
     causes=["O2", "S-plateau"])
def f07(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(8, 1, 32, 3)
    return plain(rd, fmt, seed, m, split(*D.regression(1500, seed=seed), 300), epochs=15, bs=32,
                 opt=torch.optim.AdamW(m.head.parameters(), 2e-3), loss_fn=mse, kind="reg", log_every=20)


@run("f08_mlp_reg_l2_penalty_x1000", healthy=False, fmt="mlflow", model="mlp-reg", seed=38,
     fault="explicit L2 penalty weighted 0.1 (meant 1e-4, x1000): weights pinned near 0, predicts ~the mean",
     causes=["PB-multi-loss-weights", "S-plateau", "O6"])
def f08(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(8, 1, 64, 2)
    lam = 0.1
    return plain(rd, fmt, seed, m, split(*D.regression(1500, seed=seed), 300), epochs=20, bs=32,
                 params={"lr": 2e-3, "l2_lambda": lam}, opt=torch.optim.AdamW(m.parameters(), 2e-3, weight_decay=0),
                 loss_fn=mse, kind="reg", reg_fn=lambda mod: lam * sum((p ** 2).sum() for p in mod.parameters()))


@run("f09_mlp_class_weights_inverted", healthy=False, fmt="printed_bracket", model="mlp-cls", seed=39,
     fault="85/15 binary data, CrossEntropyLoss(weight=class frequencies) instead of inverse frequencies",
     causes=["V6", "PB-loss-metric-mismatch"])
def f09(rd, fmt, seed):
    torch.manual_seed(seed)
    x, y = D.blobs(3000, k=2, seed=seed, noise=2.4, imbalance=[0.85, 0.15])
    freq = torch.bincount(y, minlength=2).float() / len(y)
    w = freq  # BUG: meant 1.0 / freq
    m = D.MLP(20, 2, 64, 2)
    return plain(rd, fmt, seed, m, split(x, y, 600), epochs=15, bs=64, f1=True,
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=lambda o, t: F.cross_entropy(o, t, weight=w),
                 kind="cls")


@run("f10_mlp_target_leak_feature", healthy=False, fmt="csv", model="mlp-cls", seed=40,
     fault="the label, one-hot encoded, left among the input features (target leakage): val accuracy ~1.0 at once",
     causes=["S-verify-experiment", "PB-data-inventory", "PB-leaky-split"])
def f10(rd, fmt, seed):
    torch.manual_seed(seed)
    x, y = D.blobs(2500, seed=seed, noise=4.0)
    x = torch.cat([x, F.one_hot(y, 4).float()], 1)  # BUG: the label column was not dropped before encoding
    m = D.MLP(24, 4, 64, 2)
    return plain(rd, fmt, seed, m, split(x, y, 500), epochs=12, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=ce, kind="cls")


@run("f11_gan_d_lr_20x", healthy=False, fmt="printed_it", model="gan-mlp", seed=41,
     fault="discriminator lr 4e-3, generator lr 2e-4 (20x apart): D wins, G gets no signal",
     causes=["S-gan-d-wins"])
def f11(rd, fmt, seed):
    lg = STYLES[fmt](rd, {})
    return E.fit_gan(D.ring_gaussians(4000, seed), logger=lg, steps=2500, bs=64, lr_g=2e-4, lr_d=4e-3, seed=seed)


@run("f12_cnn_logits_div_100", healthy=False, fmt="printed_keras", model="cnn-bn", seed=42,
     fault="logits divided by a temperature of 100 before cross-entropy (meant 1.0): loss crawls near ln 4",
     causes=["S-plateau", "S-lr-too-low", "O22"])
def f12(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.CNNBN()
    m.head = nn.Sequential(m.head)
    base = m.forward
    m.forward = lambda x: base(x) / 100.0
    return plain(rd, fmt, seed, m, split(*D.shapes16(1600, seed=seed), 400), epochs=8, bs=32,
                 opt=torch.optim.SGD(m.parameters(), lr=0.02, momentum=0.9), loss_fn=ce, kind="cls")


@run("f13_rnn_long_seq_sgd_noclip", healthy=False, fmt="printed_batch", model="rnn-cls", seed=43,
     fault="vanilla tanh RNN on 200-step sequences, SGD lr 0.5 momentum 0.9, no gradient clipping",
     causes=["S-grad-explosion", "S-grad-clip-missing", "S-nan"])
def f13(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.RNNClassifier(cell="rnn", hidden=64)
    return plain(rd, fmt, seed, m, split(*D.sinus_sequences(900, length=200, seed=seed), 200), epochs=6, bs=32,
                 opt=torch.optim.SGD(m.parameters(), lr=0.5, momentum=0.9), loss_fn=ce, kind="cls", log_every=5)


@run("f14_mlp_inputs_x1000_lightning", healthy=False, fmt="lightning_csv", model="mlp-cls", seed=44,
     fault="inputs standardised with std typed as 1e-3 (x1000 too large), SGD lr 0.01 momentum 0.9",
     causes=["V1", "PB-data-inventory", "S-grad-explosion"])
def f14(rd, fmt, seed):
    torch.manual_seed(seed)
    x, y = D.blobs(2500, seed=seed)
    x = (x - x.mean(0)) / 1e-3
    m = D.MLP(20, 4, 64, 2)
    return E.fit_lightning(rd, m, split(x, y, 500), epochs=10, bs=64, kind="cls", loss_fn=ce,
                           make_opt=lambda mod: torch.optim.SGD(mod.parameters(), 0.01, momentum=0.9),
                           hparams={"lr": 0.01, "momentum": 0.9, "norm_std": 1e-3}, seed=seed)


@run("f15_gru_lm_val_loss_summed", healthy=False, fmt="jsonl", model="gru-lm", seed=45,
     fault="validation loss logged as the SUM over eval batches instead of the mean (x number of batches)",
     causes=["PB-observability", "PB-progress-check"])
def f15(rd, fmt, seed):
    torch.manual_seed(seed)
    x, y = D.lm_blocks(D.char_stream(900, seed), 48)
    m = D.CharGRU(D.VOCAB)
    return plain(rd, fmt, seed, m, split(x, y, 120), epochs=6, bs=32, clip=1.0, eval_bs=16, val_log="sum",
                 opt=torch.optim.AdamW(m.parameters(), 3e-3), kind="lm", log_every=10,
                 loss_fn=lambda o, t: F.cross_entropy(o.reshape(-1, o.shape[-1]), t.reshape(-1)))


@run("f16_mlp_running_sum_loss", healthy=False, fmt="printed_fairseq", model="mlp-cls", seed=46,
     fault="training loss logged as the running SUM since epoch start (never divided by the step count)",
     causes=["PB-observability", "PB-progress-check"])
def f16(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    return plain(rd, fmt, seed, m, split(*D.blobs(2500, seed=seed), 500), epochs=10, bs=64, loss_log="running_sum",
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=ce, kind="cls", log_every=8)


@run("f17_ae_sigmoid_on_signed_targets", healthy=False, fmt="mlflow", model="autoencoder", seed=47,
     fault="autoencoder decoder ends in Sigmoid but the targets lie in [-1, 1]: negative half unreachable",
     causes=["PB-output-target", "PB-data-inventory", "S-plateau"])
def f17(rd, fmt, seed):
    torch.manual_seed(seed)
    x = D.sinus_vectors(2400, seed=seed)
    m = D.AutoEncoder(out_act="sigmoid")
    return plain(rd, fmt, seed, m, (x[:2000], x[:2000], x[2000:], x[2000:]), epochs=15, bs=64,
                 params={"lr": 2e-3, "out_act": "sigmoid"}, opt=torch.optim.AdamW(m.parameters(), 2e-3),
                 loss_fn=F.mse_loss, kind="ae")


@run("f18_bert_truncated_to_2_tokens", healthy=False, fmt="hf_state", model="bert-tiny-cls", seed=48,
     fault="tokenisation max_length=2 (meant 48): every review is cut to its first 2 characters",
     causes=["PB-data-inventory", "S-plateau", "PB-schema-sanity"])
def f18(rd, fmt, seed):
    return E.fit_hf(rd, bert_model(seed), review_ds(2400, seed, truncate=2), review_ds(300, seed + 100, truncate=2),
                    dict(learning_rate=1e-3, per_device_train_batch_size=32, num_train_epochs=3, warmup_steps=30,
                         weight_decay=0.01, per_device_eval_batch_size=100), E.acc_metric, seed)


@run("f19_mlp_l1_on_softmax", healthy=False, fmt="lightning_csv", model="mlp-cls", seed=49,
     fault="loss = L1 between softmax probabilities and one-hot targets (instead of cross-entropy)",
     causes=["PB-loss-metric-mismatch", "S-plateau"])
def f19(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)

    def l1soft(o, t):
        return F.l1_loss(o.softmax(-1), F.one_hot(t, o.shape[-1]).float())
    return E.fit_lightning(rd, m, split(*D.blobs(2500, seed=seed, noise=2.2), 500), epochs=12, bs=64, kind="cls",
                           loss_fn=l1soft, make_opt=lambda mod: torch.optim.SGD(mod.parameters(), 0.05, momentum=0.9),
                           hparams={"lr": 0.05, "loss": "l1_softmax"}, seed=seed)


@run("f20_bce_with_logits_on_probs", healthy=False, fmt="csv", model="mlp-bin", seed=50,
     fault="BCEWithLogitsLoss given torch.sigmoid(logits): sigmoid applied twice, gradients squashed",
     causes=["O13", "O12", "S-plateau"])
def f20(rd, fmt, seed):
    torch.manual_seed(seed)
    x, y = D.blobs(2500, k=2, seed=seed, noise=2.5)
    m = D.MLP(20, 1, 64, 2)
    bce = nn.BCEWithLogitsLoss()
    return plain(rd, fmt, seed, m, split(x, y, 500), epochs=15, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), kind="bin",
                 loss_fn=lambda o, t: bce(torch.sigmoid(o.squeeze(-1)), t.float()))


@run("f21_steplr_gamma01_every_epoch", healthy=False, fmt="printed_table", model="cnn-bn", seed=51,
     fault="StepLR(step_size=1, gamma=0.1) per epoch (meant step_size=10): LR is 1e-5 of its start by epoch 5",
     causes=["O8", "S-lr-too-low", "S-plateau"])
def f21(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.CNNBN()
    o = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    return plain(rd, fmt, seed, m, split(*D.shapes16(1600, seed=seed), 400), epochs=8, bs=32, opt=o,
                 sched=torch.optim.lr_scheduler.StepLR(o, 1, 0.1), loss_fn=ce, kind="cls")


@run("f22_mlp_eval_dropout_on", healthy=False, fmt="mlflow", model="mlp-cls", seed=52,
     fault="forward uses F.dropout(h, 0.5, training=True): dropout stays active in model.eval() validation",
     causes=["O5", "V2"])
def f22(rd, fmt, seed):
    torch.manual_seed(seed)

    class DropMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.head = nn.Linear(20, 128), nn.Linear(128, 128), nn.Linear(128, 4)

        def forward(self, x):
            h = F.dropout(F.relu(self.l1(x)), 0.5, training=True)  # BUG: should be training=self.training
            h = F.dropout(F.relu(self.l2(h)), 0.5, training=True)
            return self.head(h)
    m = DropMLP()
    return plain(rd, fmt, seed, m, split(*D.blobs(2500, seed=seed, noise=2.4), 500), epochs=15, bs=64,
                 params={"lr": 1e-3, "dropout": 0.5}, opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=ce,
                 kind="cls")


@run("f23_llama_init_range_1", healthy=False, fmt="hf_state", model="llama-tiny-lm", seed=53,
     fault="LlamaConfig(initializer_range=1.0) (meant 0.02): huge initial logits, updates tiny next to the weights",
     causes=["O22", "S-plateau", "S-vanishing-gradients"])
def f23(rd, fmt, seed):
    return E.fit_hf(rd, llama_model(seed, initializer_range=1.0), lm_ds(seed), lm_ds(seed + 100, n_sent=150),
                    dict(learning_rate=2e-3, per_device_train_batch_size=16, num_train_epochs=2, warmup_steps=20,
                         max_grad_norm=1.0), None, seed)


@run("f24_plateau_sched_mode_max", healthy=False, fmt="lightning_csv", model="cnn-bn", seed=54,
     fault="ReduceLROnPlateau(mode='max', patience=1) monitoring train_loss: a falling loss counts as no improvement",
     causes=["O8", "S-lr-too-low", "S-plateau"])
def f24(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.CNNBN()

    def mk(mod):
        o = torch.optim.SGD(mod.parameters(), lr=0.02, momentum=0.9)
        s = torch.optim.lr_scheduler.ReduceLROnPlateau(o, mode="max", factor=0.2, patience=1)
        return {"optimizer": o, "lr_scheduler": {"scheduler": s, "monitor": "train_loss_epoch", "interval": "epoch"}}
    return E.fit_lightning(rd, m, split(*D.shapes16(1600, seed=seed, noise=0.6), 400), epochs=10, bs=32, kind="cls",
                           loss_fn=ce, make_opt=mk, hparams={"lr": 0.02, "plateau_mode": "max"}, seed=seed)


@run("f25_mlp_reg_mse_broadcast", healthy=False, fmt="printed_pipe", model="mlp-reg", seed=55,
     fault="F.mse_loss(pred of shape (B,1), target of shape (B,)): broadcasts to (B,B), model learns the mean",
     causes=["S-target-size-mismatch", "S-plateau"])
def f25(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(8, 1, 64, 2)
    return plain(rd, fmt, seed, m, split(*D.regression(1500, seed=seed), 300), epochs=15, bs=32,
                 opt=torch.optim.AdamW(m.parameters(), 2e-3), loss_fn=lambda o, t: F.mse_loss(o, t), kind="reg")


@run("f26_log_softmax_dim0", healthy=False, fmt="jsonl", model="mlp-cls", seed=56,
     fault="NLLLoss on F.log_softmax(logits, dim=0): normalised over the batch axis instead of the classes",
     causes=["O16", "O1"])
def f26(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    return plain(rd, fmt, seed, m, split(*D.blobs(2500, seed=seed, noise=2.2), 500), epochs=12, bs=64,
                 opt=torch.optim.AdamW(m.parameters(), 1e-3), kind="cls", log_every=10,
                 loss_fn=lambda o, t: F.nll_loss(F.log_softmax(o, dim=0), t))


@run("f27_lstm_batch_first_missing", healthy=False, fmt="csv", model="lstm-cls", seed=57,
     fault="nn.LSTM without batch_first=True fed (B, T, F): the batch axis is read as time, samples mix",
     causes=["S-shape-mismatch", "O1"])
def f27(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.RNNClassifier(cell="lstm", batch_first=False)
    return plain(rd, fmt, seed, m, split(*D.sinus_sequences(1500, seed=seed), 300), epochs=12, bs=32, clip=1.0,
                 opt=torch.optim.AdamW(m.parameters(), 3e-3), loss_fn=ce, kind="cls")


@run("f28_cnn_hflip_destroys_label", healthy=False, fmt="lightning_csv", model="cnn-bn", seed=58,
     fault="random horizontal flip augmentation on a task whose classes are left- vs right-pointing triangles",
     causes=["DP-labels-misaligned", "PB-data-inventory", "S-plateau"])
def f28(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.CNNBN()

    def hflip(x, g):
        flip = torch.rand(x.shape[0]) < 0.5
        return torch.where(flip[:, None, None, None], x.flip(-1), x)
    return E.fit_lightning(rd, m, split(*D.shapes16(1600, seed=seed), 400), epochs=8, bs=32, kind="cls",
                           loss_fn=ce, train_aug=hflip, hparams={"lr": 1e-3, "hflip": 0.5},
                           make_opt=lambda mod: torch.optim.AdamW(mod.parameters(), 1e-3), seed=seed)


@run("f29_bert_eval_vocab_mismatch", healthy=False, fmt="hf_state", model="bert-tiny-cls", seed=59,
     fault="eval set encoded with a second char vocabulary (sorted(set(eval_text)), other ids) than training",
     causes=["PB-tokenizer-mismatch", "DP-label-mapping", "V1"])
def f29(rd, fmt, seed):
    perm = torch.arange(D.VOCAB)
    perm[1:] = torch.roll(perm[1:], 3)  # the eval-side vocabulary: same characters, shifted ids

    return E.fit_hf(rd, bert_model(seed), review_ds(2400, seed), review_ds(300, seed + 100, remap=lambda t: perm[t]),
                    dict(learning_rate=1e-3, per_device_train_batch_size=32, num_train_epochs=3, warmup_steps=30,
                         weight_decay=0.01, per_device_eval_batch_size=100), E.acc_metric, seed)


@run("f30_mlp_onecycle_total_steps_epochs", healthy=False, fmt="printed_logging", model="mlp-cls", seed=60,
     fault="OneCycleLR(total_steps=epochs) stepped every batch: the run dies when the schedule runs out",
     causes=["O8"])
def f30(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    o = torch.optim.AdamW(m.parameters(), 1e-3)
    s = torch.optim.lr_scheduler.OneCycleLR(o, max_lr=3e-3, total_steps=20)  # BUG: 20 = epochs, not steps
    lg = STYLES[fmt](rd, {})
    try:
        return E.fit(m, split(*D.blobs(2500, seed=seed), 500), logger=lg, seed=seed, epochs=20, bs=64, opt=o,
                     sched=s, sched_every="step", loss_fn=ce, kind="cls", log_every=5)
    except Exception:
        lg.log.exception("training failed")
        lg.close()
        return [{"crashed": True}]


@run("f31_mlp_acc_mean_of_batches", healthy=False, fmt="printed_dict", model="mlp-cls", seed=61,
     fault="val accuracy = mean of per-batch accuracies with eval batch 96 over 500 rows (last batch of 20 weighs 4.8x)",
     causes=["PB-observability", "S-verify-experiment"])
def f31(rd, fmt, seed):
    torch.manual_seed(seed)
    m = D.MLP(20, 4, 64, 2)
    return plain(rd, fmt, seed, m, split(*D.blobs(2500, seed=seed, noise=2.4), 500), epochs=12, bs=64, eval_bs=96,
                 acc_avg="batches", opt=torch.optim.AdamW(m.parameters(), 1e-3), loss_fn=ce, kind="cls")


# ============================================================================ driver
def summarize(hist):
    if not hist:
        return {}
    if isinstance(hist, str):
        return {"log_dir": hist}
    if isinstance(hist, list) and hist and isinstance(hist[0], dict):
        first, last = hist[0], hist[-1]
        keys = [k for k in last if isinstance(last.get(k), (int, float)) and k not in ("step", "epoch")]
        return {k: [round(first.get(k, float("nan")), 4) if isinstance(first.get(k), float) else first.get(k),
                    round(last[k], 4) if isinstance(last[k], float) else last[k]] for k in keys}
    return {}


def main(names):
    os.makedirs(RUNS, exist_ok=True)
    todo = [s for s in SPECS if (s["name"] in names if names else not os.path.exists(
        os.path.join(RUNS, s["name"], "label.json")))]
    for s in todo:
        rd = os.path.join(RUNS, s["name"])
        shutil.rmtree(rd, ignore_errors=True)
        os.makedirs(rd)
        label = {k: s[k] for k in ("healthy", "causes", "fault", "format", "model", "seed")}
        with open(os.path.join(rd, "label.json"), "w") as f:
            json.dump(label, f, indent=2)
        t = time.time()
        torch.manual_seed(s["seed"])
        try:
            hist = s["fn"](rd, s["format"], s["seed"])
            err = None
        except Exception as e:  # a generator failure, not a run outcome
            traceback.print_exc()
            hist, err = None, repr(e)
        dt = time.time() - t
        rec = {"name": s["name"], "seconds": round(dt, 1), "error": err, "summary": summarize(hist)}
        with open(os.path.join(HERE, "checks.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
