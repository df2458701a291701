#!/usr/bin/env python3
"""Update-to-weight ratio: run a few optimisation steps on the batch at the peak LR and measure
||W_after - W_before|| / ||W_start|| per weight tensor and per parameter group. About 1e-3 is healthy
for SGD-type updates (CS231n); Adam-type optimizers move every element by about the LR on their first
steps whatever the weight's scale, so for them the ratio reads LR / weight scale and the healthy band
reaches 1e-1. Far below the band the weights barely move (LR too low, or updates lost under Adam's
eps), far above it the LR is too high; groups or tensors 100x apart point at a wrong per-group LR.
Only tensors with two or more dimensions are judged (weights, kernels, embeddings); biases and norm
gains are reported.

Answers Q-opt-update-ratio (near | low | high | mixed).
Usage: python probe_update_ratio.py --setup my_setup.py:make_setup [--out result.json] [--max-steps 3]
"""
NAME, VERSION = "update_ratio", "2"
NEEDS = ("model", "optimizer", "loss_fn", "batch")
OPTIONAL = ('scaler',)

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block

# The band, per optimizer family (knowledge/probes/update_ratio.yaml gives the sources):
# - the ratio should sit around 1e-3 (CS231n "Neural Networks 3", Karpathy's update:data plots of the weight
#   matrices); 100x lower (1e-5) the weights barely move, 10x higher (1e-2) the LR is too high;
# - an adaptive optimizer (Adam, AdamW, NAdam, RAdam, Adamax, Adagrad, RMSprop: a per-element second-moment
#   state) divides each gradient by its own running scale, so its bias-corrected first steps move every
#   element by about the LR (Kingma & Ba 2015, section 2.1); on one fixed batch the ratio then reads
#   LR / rms(W). Ordinary recipes already sit at 1e-2 .. 5e-2 there (GPT-2/3: LR 6e-4 on weights of std 0.02;
#   Adam's default 1e-3 on PyTorch's default init of layers 64..1024 wide), so the top of the band is 1e-1, a
#   step of a tenth of the weight's own size;
# - SGD with momentum m keeps building its step for about 1/(1-m) steps on a steady gradient, so a few steps
#   understate its running step by up to 1/(1-m): "low" is judged on the ratio times that factor.
LOW, HIGH_SGD, HIGH_ADAPTIVE, SPREAD = 1e-5, 1e-2, 1e-1, 100.0
# optimizer-state keys of a per-element second moment: torch's Adam/AdamW/NAdam/RAdam (exp_avg_sq, amsgrad's
# max_exp_avg_sq), Adamax (exp_inf), RMSprop (square_avg), Adagrad (sum), Adafactor (exp_avg_sq_row),
# bitsandbytes' 8-bit Adam (state2)
SECOND_MOMENT = ("exp_avg_sq", "max_exp_avg_sq", "exp_inf", "square_avg", "sum", "exp_avg_sq_row", "state2")


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def _adaptive(opt, params):
    """Whether the optimizer keeps a per-element second moment (Adam family, Adagrad, RMSprop) for these tensors."""
    return any(key in opt.state.get(p, {}) for p in params for key in SECOND_MOMENT)


def _peak_lr(opt):
    """Set every group to the LR it trains at (a warmup may start at 0); return the LRs."""
    for g in opt.param_groups:
        g["lr"] = float(g.get("max_lr", g.get("initial_lr", g["lr"])))
    return [g["lr"] for g in opt.param_groups]


def body(ctx):
    opt = ctx.opt
    group_of = {id(p): i for i, g in enumerate(opt.param_groups) for p in g["params"]}
    tracked = [(n, p) for n, p in ctx.trainable() if id(p) in group_of]
    lrs = _peak_lr(opt)
    momentum = max((float(g.get("momentum") or 0.0) for g in opt.param_groups), default=0.0)
    start_norm = {n: float(p.detach().float().norm()) for n, p in tracked}
    ratios = {n: [] for n, _ in tracked}
    per_lr = {n: [] for n, _ in tracked}  # RMS step per element in units of the group's LR
    steps = max(1, min(ctx.args.max_steps, 10))
    for _ in range(steps):
        ctx.check_time()
        before = {n: p.detach().float().clone() for n, p in tracked}
        ctx.step()
        for n, p in tracked:
            du = float((p.detach().float() - before[n]).norm())
            lr = lrs[group_of[id(p)]]
            if lr > 0:
                per_lr[n].append(du / (lr * math.sqrt(max(1, p.numel()))))
            if du > 0 and start_norm[n] > 0:  # against the starting weights: a zero-initialised tensor has no scale
                ratios[n].append(du / start_norm[n])
    adaptive = _adaptive(opt, [p for _, p in tracked])
    shapes = {n: p.dim() for n, p in tracked}
    per_tensor = {n: _median(v) for n, v in ratios.items() if v}
    judged = {n: v for n, v in per_tensor.items() if shapes[n] >= 2} or per_tensor
    still = [n for n, v in ratios.items() if not v and start_norm[n] > 0]
    zero_start = [n for n in ratios if start_norm[n] == 0]
    groups = {}
    for n, p in tracked:
        if n in judged:
            groups.setdefault(group_of[id(p)], []).append(judged[n])
    per_group = {f"group{i}": _median(v) for i, v in sorted(groups.items())}
    steps_per_lr = _median([_median(per_lr[n]) for n in judged if per_lr[n]])
    high = HIGH_ADAPTIVE if adaptive else HIGH_SGD
    build_up = 1.0 / (1.0 - momentum) if 0 < momentum < 1 and not adaptive else 1.0
    ctx.meas.update(steps=steps, lr=lrs, optimizer=type(opt).__name__, adaptive=adaptive, momentum=momentum,
                    band=[LOW, high], per_group=per_group, not_moving=still[:50], zero_at_start=zero_start[:50],
                    judged_tensors=len(judged), step_per_element_over_lr=steps_per_lr,
                    per_tensor=dict(sorted(per_tensor.items(), key=lambda kv: kv[1])))
    if max(lrs, default=0.0) == 0:
        return "fail", {"Q-opt-update-ratio": "low"}, "the learning rate is 0 in every parameter group"
    if not judged:
        return "fail", {"Q-opt-update-ratio": "low"}, "no trainable tensor moved at all during the steps"
    med = _median(list(judged.values()))
    ctx.meas["median_ratio"] = med
    gm = list(per_group.values())
    off = [n for n, v in judged.items() if v > SPREAD * med or v < med / SPREAD]
    lost = adaptive and steps_per_lr < 0.01  # Adam's step is ~1 LR per element unless the gradient is under eps
    if med * build_up < LOW or lost:
        answer = "low"
    elif med > high:
        answer = "high"
    elif (len(gm) > 1 and max(gm) / min(gm) > SPREAD) or len(off) > 0.25 * len(judged):
        answer = "mixed"
    else:
        answer = "near"
    kind = type(opt).__name__ + (": adaptive, about one LR per element" if adaptive else
                                 f", momentum {momentum:g}" if momentum else "")
    text = (f"median update/weight ratio {med:.2g} over {len(judged)} weight tensor(s) and {steps} step(s) "
            f"at lr {max(lrs):g} ({kind}; healthy {LOW:g} .. {high:g})")
    if len(gm) > 1:
        text += " (groups: " + ", ".join(f"{k} {v:.2g}" for k, v in per_group.items()) + ")"
    hint = {"low": (("; the weights barely move: LR too low" + (f" (even with momentum's {build_up:g}x build-up)"
                                                                 if build_up > 1 else "")) if not lost else
                    f"; each step moves the weights by {steps_per_lr:.2g} of the LR per element: the gradients are zero "
                    "or below the optimizer's eps (a loss scaled down to nothing?), so the updates are lost"),
            "high": f"; far above {high:g}: the LR is likely too high",
            "mixed": f"; some tensors or groups are {SPREAD:g}x off the rest: check per-group LRs and weight decay"}
    return ("pass" if answer == "near" else "fail"), {"Q-opt-update-ratio": answer}, text + hint.get(answer, "")


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 3, body, argv)


if __name__ == "__main__":
    sys.exit(main())
