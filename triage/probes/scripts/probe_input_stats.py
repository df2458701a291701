#!/usr/bin/env python3
"""Input statistics: per-channel mean and std of the batch as it enters the model, its range
(raw [0, 255] pixels vs [0, 1] vs standardised), non-finite values, constant channels, and, when
the setup gives eval_batch=(inputs, targets), whether evaluation inputs are prepared the same way.

Answers Q-vis-input-stats (normal | off-scale | mismatch) and Q-eval-pipeline (differs).
Usage: python probe_input_stats.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "input_stats", "1"
NEEDS = ("batch",)
OPTIONAL = ('eval_batch',)

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def _tensor(inputs):
    if torch.is_tensor(inputs):
        return inputs
    if isinstance(inputs, dict) or hasattr(inputs, "keys"):
        for key in ("pixel_values", "images", "image", "x", "inputs"):
            if torch.is_tensor(inputs.get(key)):
                return inputs[key]
        inputs = list(inputs.values())
    if isinstance(inputs, (tuple, list)):
        floats = [v for v in inputs if torch.is_tensor(v) and v.is_floating_point()]
        return floats[0] if floats else next((v for v in inputs if torch.is_tensor(v)), None)
    return None


def _stats(x):
    x = x.detach()
    cdim = 1 if x.dim() in (4, 5) and (x.shape[1] <= 4 or x.shape[-1] > 4) else x.dim() - 1
    if x.dim() == 4 and x.shape[1] > 4 and x.shape[-1] <= 4:
        cdim = 3  # channels-last images
    xf = x.float().movedim(cdim, -1).reshape(-1, x.shape[cdim]) if x.dim() > 1 else x.float().reshape(-1, 1)
    return {"mean": xf.mean(0)[:64].tolist(), "std": xf.std(0, unbiased=False)[:64].tolist(),
            "min": float(xf.min()), "max": float(xf.max()), "channel_dim": cdim,
            "integral": bool((xf == xf.round()).all())}


def body(ctx):
    x = _tensor(ctx.inputs)
    if x is None:
        return "inconclusive", {}, "no input tensor found in the batch"
    ctx.meas.update(dtype=str(x.dtype), shape=list(x.shape))
    if not (x.is_floating_point() or x.dtype == torch.uint8):
        return "inconclusive", {}, f"inputs are {x.dtype} (token ids or indices); nothing to normalise"
    if x.is_floating_point() and not bool(torch.isfinite(x).all()):
        return "fail", {"Q-vis-input-stats": "off-scale"}, "the inputs contain NaN or Inf"
    s = _stats(x)
    ctx.meas.update(s)
    means, stds = s["mean"], s["std"]
    raw = x.dtype == torch.uint8 or (s["min"] >= 0 and 1.5 < s["max"] <= 255 and (s["integral"] or max(means) > 10))
    answers, problems = {}, []
    if raw:
        answers["Q-vis-input-stats"] = "off-scale"
        problems.append(f"inputs look like raw 0-255 values (range [{s['min']:.3g}, {s['max']:.3g}], channel means "
                        + ", ".join(f"{m:.3g}" for m in means[:4]) + "): divide by 255 and normalise")
    elif any(abs(m) > 3 for m in means) or any(v > 5 for v in stds):
        answers["Q-vis-input-stats"] = "off-scale"
        problems.append("channel mean/std far from 0/1: means " + ", ".join(f"{m:.3g}" for m in means[:4])
                        + "; stds " + ", ".join(f"{v:.3g}" for v in stds[:4]))
    else:
        answers["Q-vis-input-stats"] = "normal"
    constant = [i for i, v in enumerate(stds) if v == 0]
    if constant and x.shape[0] > 1:
        ctx.meas["constant_channels"] = constant[:20]
    eval_batch = ctx.setup.get("eval_batch")
    if eval_batch is not None:
        e = _tensor(to_device(eval_batch[0] if isinstance(eval_batch, (tuple, list)) else eval_batch, ctx.device))
        if torch.is_tensor(e) and (e.is_floating_point() or e.dtype == torch.uint8):
            es = _stats(e)
            ctx.meas["eval"] = es
            if len(es["mean"]) == len(means):
                scale = [max(a, b, 1e-6) for a, b in zip(stds, es["std"])]
                gap = max(abs(a - b) / c for a, b, c in zip(means, es["mean"], scale))
                ratio = max(max(a, 1e-6) / max(b, 1e-6) for a, b in zip(stds + es["std"], es["std"] + stds))
                ctx.meas.update(train_eval_mean_gap=gap, train_eval_std_ratio=ratio)
                if gap > 0.5 or ratio > 2:
                    answers["Q-vis-input-stats"] = "mismatch"
                    answers["Q-eval-pipeline"] = "differs"
                    problems.append(f"train and eval inputs are prepared differently (mean gap {gap:.2g} std, std ratio {ratio:.2g})")
    if problems:
        return "fail", answers, "; ".join(problems)
    lo01 = s["min"] >= 0 and s["max"] <= 1
    note = "; inputs in [0, 1] and not standardised (a pretrained backbone expects its mean/std)" if lo01 else ""
    return "pass", answers, ("per-channel means " + ", ".join(f"{m:.2g}" for m in means[:4]) + ", stds "
                             + ", ".join(f"{v:.2g}" for v in stds[:4]) + note)


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 1, body, argv)


if __name__ == "__main__":
    sys.exit(main())
