#!/usr/bin/env python3
"""Labels: dtype, shape against the model output, value range against num_classes (labels 1..C,
negative values, a void value such as 255), the loss's ignore_index and the share of ignored
positions; on the batch and up to --max-steps batches of setup['dataloader'] when given.

Answers Q-error-kind (device-assert | dtype | shape) and Q-vis-label-values (consistent | shifted |
void-unhandled).
Usage: python probe_labels.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "labels", "2"
NEEDS = ("model", "batch")
OPTIONAL = ('loss_fn', 'num_classes', 'dataloader')

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def _targets(batch):
    if isinstance(batch, dict) or hasattr(batch, "keys"):
        return batch.get("labels")
    if isinstance(batch, (tuple, list)) and len(batch) >= 2:
        return batch[1]
    return None


def body(ctx):
    y = ctx.targets
    if not torch.is_tensor(y):
        return "inconclusive", {}, f"targets are {type(y).__name__}, not a tensor; nothing to check"
    with torch.no_grad():
        out = forward(ctx.model, ctx.inputs)
    logits = logits_of(out)
    ignore = getattr(ctx.loss_fn, "ignore_index", -100)
    classes = ctx.setup.get("num_classes")
    ctx.meas.update(dtype=str(y.dtype), shape=list(y.shape), ignore_index=ignore,
                    output_shape=list(logits.shape) if torch.is_tensor(logits) else None)
    if y.is_floating_point():
        if torch.is_tensor(logits) and y.shape == logits.shape:
            lo, hi = float(y.min()), float(y.max())
            ctx.meas.update(min=lo, max=hi)
            if lo < 0 or hi > 1:
                with torch.no_grad():
                    value = ctx.loss_fn(out, y) if ctx.loss_fn is not None else None
                if value is None or not binary_ce(ctx.loss_fn, out, y, float(value)):
                    return "inconclusive", {}, (f"float targets in [{lo:g}, {hi:g}] for a loss that is not binary "
                                                "cross-entropy (regression?); nothing to check")
                return "fail", {}, f"float targets for binary cross-entropy lie in [{lo:g}, {hi:g}], expected [0, 1]"
            return "pass", {}, f"float targets of the output's shape in [{lo:g}, {hi:g}] (binary / soft labels)"
        if bool((y == y.round()).all()):
            return "fail", {"Q-error-kind": "dtype"}, (f"class labels are stored as {y.dtype}; cross-entropy needs "
                                                       "torch.long class indices (labels.long())")
        return "inconclusive", {}, "float targets that are not class indices (regression?); nothing to check"
    if classes is None and torch.is_tensor(logits) and logits.dim() >= 2:
        classes = logits.shape[-1] if tuple(logits.shape[:-1]) == tuple(y.shape) else logits.shape[1]
    ctx.meas["num_classes"] = classes
    if torch.is_tensor(logits) and logits.dim() >= 2:
        ok = tuple(logits.shape[:-1]) == tuple(y.shape) or tuple(logits.shape[:1] + logits.shape[2:]) == tuple(y.shape)
        if not ok:
            return "fail", {"Q-error-kind": "shape"}, (f"targets of shape {list(y.shape)} do not match outputs {list(logits.shape)}: "
                                                       "expected the output shape without its class dimension (squeeze a [B, 1] label?)")
    values = [y]
    loader = ctx.setup.get("dataloader")
    if loader is not None:
        for i, b in enumerate(loader):
            if i >= ctx.args.max_steps:
                break
            ctx.check_time()
            t = _targets(b)
            if torch.is_tensor(t) and not t.is_floating_point():
                values.append(t.reshape(-1))
    flat = torch.cat([v.reshape(-1).cpu() for v in values])
    kept = flat[flat != ignore]
    ctx.meas.update(labels_seen=flat.numel(), ignored_share=1 - kept.numel() / max(1, flat.numel()))
    if kept.numel() == 0:
        return "fail", {}, f"every label equals ignore_index={ignore}: the loss is NaN (0/0)"
    lo, hi = int(kept.min()), int(kept.max())
    uniq = torch.unique(kept)
    ctx.meas.update(min=lo, max=hi, distinct=int(uniq.numel()), values=uniq[:50].tolist())
    if classes is None:
        return "inconclusive", {}, f"labels in [{lo}, {hi}]; pass num_classes to check the range"
    answers, problems = {}, []
    if hi >= classes or lo < 0:
        answers["Q-error-kind"] = "device-assert"
        if hi == classes and lo >= 1:
            answers["Q-vis-label-values"] = "shifted"
            problems.append(f"labels run 1..{hi} but the model has {classes} outputs (0..{classes - 1}): subtract 1")
        elif 255 in uniq.tolist() and classes < 255:
            answers["Q-vis-label-values"] = "void-unhandled"
            problems.append(f"void label 255 is present but the loss ignores {ignore}: set ignore_index=255")
        else:
            answers["Q-vis-label-values"] = "shifted"
            problems.append(f"labels in [{lo}, {hi}] fall outside 0..{classes - 1}")
        problems[-1] += " (on GPU: 'device-side assert triggered'; on CPU: 'Target ... is out of bounds')"
    else:
        answers["Q-vis-label-values"] = "consistent"
    if problems:
        return "fail", answers, "; ".join(problems)
    note = f", {ctx.meas['ignored_share']:.0%} ignored" if ctx.meas["ignored_share"] else ""
    return "pass", answers, f"{flat.numel()} {y.dtype} labels in [{lo}, {hi}] for {classes} classes{note}"


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 20, body, argv)


if __name__ == "__main__":
    sys.exit(main())
