#!/usr/bin/env python3
"""Model output form: are the outputs raw logits, probabilities (softmax / sigmoid) or
log-probabilities, and which loss consumes them? Probabilities fed to CrossEntropyLoss (softmax
before CE), raw logits fed to NLLLoss, and sigmoid outputs fed to BCEWithLogitsLoss are caught.
The loss is recognised by its class or, for a plain function, by matching its value against
cross_entropy, nll_loss, binary_cross_entropy(_with_logits) on the same outputs.

Answers Q-output-loss (logits-ce | softmax-ce | sigmoid-bce | logits-nll | other).
Usage: python probe_output_form.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "output_form", "1"
NEEDS = ("model", "loss_fn", "batch")
OPTIONAL = ()

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block

F = torch.nn.functional


def _form(z, cdim):
    """'probs', 'logprobs', 'sigmoid' or 'logits' along the class dimension."""
    z = z.float()
    if z.numel() == 0:
        return "logits"
    lo, hi = float(z.min()), float(z.max())
    if lo >= 0 and hi <= 1:
        if z.shape[cdim] > 1 and bool(torch.allclose(z.sum(cdim), torch.ones_like(z.sum(cdim)), atol=1e-3)):
            return "probs"
        return "sigmoid"
    if hi <= 1e-6 and z.shape[cdim] > 1:
        lse = torch.logsumexp(z, cdim)
        if bool(torch.allclose(lse, torch.zeros_like(lse), atol=1e-3)):
            return "logprobs"
    return "logits"


def _identify(loss_fn, z, y, actual):
    name = type(loss_fn).__name__
    for known in ("CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss", "BCELoss"):
        if name == known:
            return known
    cands = {}
    with torch.no_grad():
        if not y.is_floating_point():
            flat_z, flat_y = z, y
            if z.dim() > 2 and tuple(z.shape[:-1]) == tuple(y.shape):
                flat_z, flat_y = z.reshape(-1, z.shape[-1]), y.reshape(-1)
            for key, fn in (("NLLLoss", F.nll_loss), ("CrossEntropyLoss", F.cross_entropy),
                            ("softmax+CrossEntropyLoss", lambda a, b: F.cross_entropy(a.softmax(-1), b))):
                try:
                    cands[key] = float(fn(flat_z.float(), flat_y))
                except Exception:  # noqa: BLE001 - shape does not fit this loss
                    pass
        elif y.shape == z.shape:
            try:
                cands["BCEWithLogitsLoss"] = float(F.binary_cross_entropy_with_logits(z.float(), y.float()))
                if float(z.min()) >= 0 and float(z.max()) <= 1:
                    cands["BCELoss"] = float(F.binary_cross_entropy(z.float(), y.float()))
            except Exception:  # noqa: BLE001
                pass
    for key, value in cands.items():
        if math.isclose(value, actual, rel_tol=1e-3, abs_tol=1e-5):
            return key
    return None


def body(ctx):
    with torch.no_grad():
        out, loss = ctx.loss()
    z, y = logits_of(out), ctx.targets
    actual = float(loss.detach().float().mean())
    if not (torch.is_tensor(z) and torch.is_tensor(y)):
        return "inconclusive", {}, "outputs or targets are not tensors"
    cdim = z.dim() - 1 if (z.dim() < 2 or tuple(z.shape[:-1]) == tuple(y.shape) or y.shape == z.shape) else 1
    form = _form(z, cdim)
    loss_kind = _identify(ctx.loss_fn, z, y, actual)
    ctx.meas.update(output_form=form, loss=loss_kind or "unrecognised", loss_value=actual,
                    output_range=[float(z.min()), float(z.max())])
    if loss_kind == "softmax+CrossEntropyLoss" and form == "logits":
        return "fail", {"Q-output-loss": "softmax-ce"}, (
            "the loss function applies softmax before cross_entropy, which applies log_softmax again: "
            "pass the raw logits to cross_entropy")
    if loss_kind == "CrossEntropyLoss":
        if form in ("probs", "sigmoid"):
            return "fail", {"Q-output-loss": "softmax-ce"}, (
                "probabilities (softmax output) go into CrossEntropyLoss, which applies log_softmax itself: "
                "remove the softmax from the model and feed raw logits")
        if form == "logprobs":
            return "pass", {"Q-output-loss": "logits-ce"}, (
                "log-probabilities go into CrossEntropyLoss: harmless (log_softmax is idempotent), but raw logits suffice")
        return "pass", {"Q-output-loss": "logits-ce"}, "raw logits into CrossEntropyLoss"
    if loss_kind == "NLLLoss":
        if form == "logprobs":
            return "pass", {"Q-output-loss": "logits-ce"}, "log_softmax outputs into NLLLoss (equivalent to CE on logits)"
        if form == "probs":
            return "fail", {"Q-output-loss": "softmax-ce"}, "softmax probabilities go into NLLLoss, which expects log-probabilities: use log_softmax"
        return "fail", {"Q-output-loss": "logits-nll"}, (
            "raw logits go into NLLLoss, which expects log-probabilities: the loss is -logit[y], unbounded below "
            "(use CrossEntropyLoss, or log_softmax before NLLLoss)")
    if loss_kind == "BCEWithLogitsLoss":
        if form in ("sigmoid", "probs"):
            return "fail", {"Q-output-loss": "sigmoid-bce"}, (
                "outputs in [0, 1] (sigmoid already applied) go into BCEWithLogitsLoss, which applies sigmoid again: "
                "remove the sigmoid from the model")
        return "pass", {"Q-output-loss": "logits-ce"}, "raw logits into BCEWithLogitsLoss"
    if loss_kind == "BCELoss":
        return "pass", {"Q-output-loss": "sigmoid-bce"}, (
            "sigmoid outputs into BCELoss: correct but less stable than BCEWithLogitsLoss on raw logits (NaN risk in fp16)")
    if form in ("probs", "logprobs"):
        return "inconclusive", {"Q-output-loss": "other"}, (
            f"the model outputs {'probabilities' if form == 'probs' else 'log-probabilities'} into an unrecognised loss; "
            "check that the loss expects them")
    return "pass", {"Q-output-loss": "other"}, f"raw outputs into an unrecognised loss ({type(ctx.loss_fn).__name__})"


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 1, body, argv)


if __name__ == "__main__":
    sys.exit(main())
