#!/usr/bin/env python3
"""Update-to-weight ratio: run a few optimisation steps on the batch and measure
||W_after - W_before|| / ||W_before|| per tensor and per parameter group. About 1e-3 is healthy;
far below means the weights barely move (LR too low, or updates lost), far above means the LR is
too high; groups 100x apart point at a wrong per-group LR.

Answers Q-opt-update-ratio (near | low | high | mixed).
Usage: python probe_update_ratio.py --setup my_setup.py:make_setup [--out result.json] [--max-steps 3]
"""
NAME, VERSION = "update_ratio", "1"
NEEDS = ("model", "optimizer", "loss_fn", "batch")
OPTIONAL = ('scaler',)

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def body(ctx):
    model, opt = ctx.model, ctx.opt
    names = {id(p): n for n, p in model.named_parameters()}
    group_of = {id(p): i for i, g in enumerate(opt.param_groups) for p in g["params"]}
    tracked = [(n, p) for n, p in ctx.trainable() if id(p) in group_of]
    ratios = {n: [] for n, _ in tracked}
    steps = max(1, min(ctx.args.max_steps, 10))
    for _ in range(steps):
        ctx.check_time()
        before = {n: p.detach().float().clone() for n, p in tracked}
        ctx.step()
        for n, p in tracked:
            w = before[n]
            du = float((p.detach().float() - w).norm())
            wn = float(w.norm())
            if du > 0 and wn > 0:
                ratios[n].append(du / wn)
    per_tensor = {n: _median(v) for n, v in ratios.items() if v}
    still = [n for n, v in ratios.items() if not v]
    groups = {}
    for n, p in tracked:
        if n in per_tensor:
            groups.setdefault(group_of[id(p)], []).append(per_tensor[n])
    per_group = {f"group{i}": _median(v) for i, v in sorted(groups.items())}
    ctx.meas.update(steps=steps, per_group=per_group, not_moving=still[:50],
                    per_tensor=dict(sorted(per_tensor.items(), key=lambda kv: kv[1])), names_count=len(names))
    if not per_tensor:
        return "fail", {"Q-opt-update-ratio": "low"}, "no trainable tensor moved at all during the steps"
    med = _median(list(per_tensor.values()))
    ctx.meas["median_ratio"] = med
    gm = [v for v in per_group.values()]
    off = [n for n, v in per_tensor.items() if v > 100 * med or v < med / 100]
    if med < 1e-5:
        answer = "low"
    elif med > 1e-2:
        answer = "high"
    elif (len(gm) > 1 and max(gm) / min(gm) > 100) or len(off) > 0.25 * len(per_tensor):
        answer = "mixed"
    else:
        answer = "near"
    text = f"median update/weight ratio {med:.2g} over {len(per_tensor)} tensors and {steps} step(s)"
    if len(gm) > 1:
        text += " (groups: " + ", ".join(f"{k} {v:.2g}" for k, v in per_group.items()) + ")"
    hint = {"low": "; the weights barely move: LR too low or updates lost",
            "high": "; far above ~1e-3: the LR is likely too high",
            "mixed": "; some tensors or groups are 100x off the rest: check per-group LRs and weight decay"}
    return ("pass" if answer == "near" else "fail"), {"Q-opt-update-ratio": answer}, text + hint.get(answer, "; healthy is about 1e-3")


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 3, body, argv)


if __name__ == "__main__":
    sys.exit(main())
