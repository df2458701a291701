#!/usr/bin/env python3
"""Loss at initialisation vs ln(C): compute the loss of the model as the setup returns it on one
batch and compare it with the loss of a uniform prediction, ln(num_classes) for a C-way
cross-entropy or ln(2) per element for binary cross-entropy.

Answers Q-loss-init (near | high | low | negative).
Usage: python probe_loss_at_init.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "loss_at_init", "2"
NEEDS = ("model", "loss_fn", "batch")
OPTIONAL = ('num_classes',)

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def body(ctx):
    with torch.no_grad():
        out, loss = ctx.loss()
    loss = float(loss.detach().float().mean())
    logits, y = logits_of(out), ctx.targets
    ctx.meas["loss"] = loss
    if not math.isfinite(loss):
        return "fail", {}, f"the loss at initialisation is {loss}"
    if not (torch.is_tensor(logits) and torch.is_tensor(y)):
        return "inconclusive", {}, "outputs or targets are not tensors; cannot tell how many classes there are"
    name = type(ctx.loss_fn).__name__
    if regression_loss(ctx.loss_fn) or (y.is_floating_point() and y.shape == logits.shape and "BCE" not in name
                                        and (float(y.min()) < 0 or float(y.max()) > 1)):
        return "inconclusive", {}, (f"loss {loss:.4g}: a regression loss or targets outside [0, 1], not a classification "
                                    "loss; nothing to compare with")
    if "BCE" in name or (y.is_floating_point() and y.shape == logits.shape and logits.dim() >= 1
                         and not bool(torch.allclose(y.sum(-1), torch.ones_like(y.sum(-1))))):
        kind, classes, expected = "binary", 2, math.log(2)
    elif not y.is_floating_point() or y.shape == logits.shape:
        classes = ctx.setup.get("num_classes")
        if classes is None and logits.dim() >= 2:
            classes = logits.shape[-1] if tuple(logits.shape[:-1]) == tuple(y.shape) or y.shape == logits.shape else logits.shape[1]
        if not classes or classes < 2:
            return "inconclusive", {}, f"loss {loss:.4g}: cannot tell the number of classes (pass num_classes)"
        kind, expected = "multiclass", math.log(int(classes))
    else:
        return "inconclusive", {}, f"loss {loss:.4g}: not a classification loss, nothing to compare with"
    ctx.meas.update(kind=kind, num_classes=int(classes), expected=expected, ratio=loss / expected)
    if loss < 0:
        answer = "negative"
    elif loss > 1.5 * expected + 0.5:
        answer = "high"
    elif loss < 0.5 * expected:
        answer = "low"
    else:
        answer = "near"
    text = f"loss at init {loss:.4g} vs ln({int(classes)}) = {expected:.4g} ({kind})"
    hints = {"high": "; the initial logits are too large (last-layer init, logit scale, or labels out of place)",
             "low": "; suspiciously low for an untrained model (label leak, already trained, or a loss that averages over padding)",
             "negative": "; a likelihood loss below 0 means the input is not log-probabilities (NLLLoss on raw logits?)"}
    return ("pass" if answer == "near" else "fail"), {"Q-loss-init": answer}, text + hints.get(answer, ": as expected")


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 1, body, argv)


if __name__ == "__main__":
    sys.exit(main())
