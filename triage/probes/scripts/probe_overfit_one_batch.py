#!/usr/bin/env python3
"""Overfit one batch: train on one fixed batch with dropout and weight decay off (no augmentation:
the batch is reused as is) and check the loss falls to near zero. A model that cannot memorise one
batch has a bug in the model, the loss or the optimisation, not in the data.

Passes when the loss falls to a tenth of its start (or to its floor: label smoothing keeps cross-entropy
above the entropy of the smoothed targets). Fails when the loss goes below zero (impossible for
cross-entropy, likelihoods of probabilities and squared errors: the outputs are not what the loss
expects), turns non-finite, or stops improving far from its floor. A loss still falling steadily when
the steps run out is inconclusive (raise --max-steps or the LR), not a failure.

Answers Q-overfit-one-batch (pass | fail).
Usage: python probe_overfit_one_batch.py --setup my_setup.py:make_setup [--out result.json] [--max-steps 300]
"""
NAME, VERSION = "overfit_one_batch", "2"
NEEDS = ("model", "optimizer", "loss_fn", "batch")
OPTIONAL = ('scaler',)

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block

# Losses whose value can be negative by definition (densities of continuous targets, Poisson rates without the
# log(y!) term): for them a value below 0 is no sign of a bug. Every other torch.nn loss is >= 0.
MAY_BE_NEGATIVE = ("GaussianNLLLoss", "PoissonNLLLoss")
NEGATIVE = -1e-6  # below zero beyond float rounding
TARGET = 0.1  # "near zero": a tenth of the starting distance to the floor (Karpathy, "A Recipe for Training
#               Neural Networks": overfit one batch to (near) zero loss)
STALL = 0.01  # the last fifth of the steps gaining under 1% of that distance is slow; stalled if also decelerating


def _no_dropout(model):
    """Set every dropout probability to 0; return the undo list."""
    undo = []
    for m in model.modules():
        for attr, value in list(vars(m).items()):
            if (attr == "p" and isinstance(m, torch.nn.modules.dropout._DropoutNd)) or (
                    "dropout" in attr.lower() and isinstance(value, float) and 0.0 < value < 1.0):
                if isinstance(value, float) and value > 0:
                    undo.append((m, attr, value))
                    setattr(m, attr, 0.0)
    return undo


def _floor(ctx):
    """The lowest value the loss can take on this batch, where the loss says: CrossEntropyLoss with label
    smoothing e over C classes cannot go below the entropy of its smoothed target, -(1-e+e/C) ln(1-e+e/C) -
    (C-1) (e/C) ln(e/C). Else 0."""
    eps = float(getattr(ctx.loss_fn, "label_smoothing", 0.0) or 0.0)
    if not (isinstance(ctx.loss_fn, torch.nn.CrossEntropyLoss) and 0 < eps < 1):
        return 0.0
    with torch.no_grad():
        logits = logits_of(forward(ctx.model, ctx.inputs))
    if not (torch.is_tensor(logits) and logits.dim() >= 2):
        return 0.0
    c = logits.shape[1]
    hit, other = 1 - eps + eps / c, eps / c
    return -(hit * math.log(hit) + (c - 1) * other * math.log(other))


def _still_falling(losses, gap):
    """(verdict, gained) from the last two fifths of the steps: 'falling', 'slow' or 'stalled'.

    Stalled: the last fifth is no lower than the fifth before beyond noise (three standard errors), or it
    gained under STALL of the starting gap while the pace fell below a quarter of the run's average pace (the
    curve flattens out far from the floor). Slow: it gains under STALL per fifth at a steady or rising pace (a
    low LR, or momentum still building): not there yet, not broken."""
    w = max(5, len(losses) // 5)
    if len(losses) < 2 * w:
        return None, None
    prev, last = losses[-2 * w:-w], losses[-w:]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    var = lambda xs: sum((x - mean(xs)) ** 2 for x in xs) / max(1, len(xs) - 1)  # noqa: E731
    drop = mean(prev) - mean(last)
    se = math.sqrt(var(prev) / w + var(last) / w)
    gained = drop / gap
    average = (losses[0] - mean(last)) / gap * w / max(1.0, len(losses) - w / 2)  # gain per fifth over the run
    if drop <= 3 * se:
        return "stalled", gained
    if gained >= STALL:
        return "falling", gained
    return ("stalled" if gained < 0.25 * average else "slow"), gained


def _negative(first, value, step):
    where = f"is below zero from the first step ({value:.3g})" if step == 0 else \
        f"went below zero ({first:.3g} -> {value:.3g} at step {step})"
    return "fail", {"Q-overfit-one-batch": "fail"}, (
        f"the loss {where}: impossible for cross-entropy, "
        "likelihoods of probabilities or squared errors, so it is not measuring what it should (NLLLoss on raw "
        "logits, a missing log_softmax, a sign error); run the output_form probe (a loss that may be negative by "
        "design, such as a density of continuous targets, has no 'near zero' to reach)")


def body(ctx):
    model, opt = ctx.model, ctx.opt
    model.train()
    undo = _no_dropout(model)
    try:
        for g in opt.param_groups:
            if g.get("weight_decay"):
                g["weight_decay"] = 0.0
            g["lr"] = g.get("max_lr", g.get("initial_lr", g["lr"]))  # the peak LR, not a warmup value
        lrs = sorted({float(g["lr"]) for g in opt.param_groups})
        may_be_negative = type(ctx.loss_fn).__name__ in MAY_BE_NEGATIVE
        ctx.meas.update(dropout_disabled=len(undo), lr=lrs, max_steps=ctx.args.max_steps)
        if max(lrs) == 0:
            return "fail", {"Q-overfit-one-batch": "fail"}, "the optimizer's learning rate is 0: nothing can be learned"
        floor = _floor(ctx)
        ctx.meas["loss_floor"] = floor
        losses = []
        for i in range(max(1, ctx.args.max_steps)):
            ctx.check_time()
            loss = ctx.step()
            losses.append(loss)
            ctx.meas.update(steps=i + 1, first_loss=losses[0], best_loss=min(losses))
            if not math.isfinite(loss):
                ctx.meas["losses"] = losses[:: max(1, len(losses) // 50)]
                return "fail", {"Q-overfit-one-batch": "fail"}, f"the loss became {loss} at step {i} while fitting one batch"
            if loss < NEGATIVE and not may_be_negative:
                ctx.meas["losses"] = losses[:: max(1, len(losses) // 50)]
                return _negative(losses[0], loss, i)
            if i > 0 and loss - floor <= max(TARGET * (losses[0] - floor), 1e-3):
                break
        with torch.no_grad():
            out, final = ctx.loss()
        final = float(final)
        first, best = losses[0], min(losses + [final])
        ctx.meas.update(final_loss=final, best_loss=best, losses=losses[:: max(1, len(losses) // 50)])
        logits = logits_of(out)
        y = ctx.targets
        if torch.is_tensor(logits) and torch.is_tensor(y) and not y.is_floating_point() and logits.dim() >= 2:
            pred = logits.argmax(-1) if tuple(logits.shape[:-1]) == tuple(y.shape) else logits.argmax(1)
            if pred.shape == y.shape:
                keep = y != -100
                ctx.meas["accuracy"] = float((pred[keep] == y[keep]).float().mean()) if keep.any() else None
        steps = ctx.meas["steps"]
        if final < NEGATIVE and not may_be_negative:
            return _negative(first, final, steps)
        gap = max(first - floor, 1e-12)
        if may_be_negative:
            return "inconclusive", {}, (f"{type(ctx.loss_fn).__name__} can be negative, so 'near zero' does not apply: "
                                        f"loss {first:.3g} -> {final:.3g} in {steps} steps")
        if final - floor <= max(TARGET * gap, 1e-3):
            where = f" (floor {floor:.3g} from label smoothing)" if floor else ""
            return "pass", {"Q-overfit-one-batch": "pass"}, f"memorised the batch: loss {first:.3g} -> {final:.3g}{where} in {steps} steps"
        verdict, gained = _still_falling(losses, gap)
        ctx.meas.update(last_fifth_gain=gained, trend=verdict)
        if verdict is None:
            return "inconclusive", {}, (f"loss {first:.3g} -> {final:.3g} in only {steps} steps: too few to judge; "
                                        "raise --max-steps")
        if verdict == "stalled":
            return "fail", {"Q-overfit-one-batch": "fail"}, (
                f"cannot overfit one batch: loss {first:.3g} -> {final:.3g} (best {best:.3g}) after {steps} steps "
                f"at lr {max(lrs):g} with dropout and weight decay off; it has stopped improving (the last fifth of the "
                f"steps gained {max(gained, 0.0):.1%} of the way to {floor:.3g})")
        pace = "steadily" if verdict == "falling" else "slowly but steadily"
        return "inconclusive", {}, (f"loss still falling {pace} ({first:.3g} -> {final:.3g}, {1 - (final - floor) / gap:.0%} "
                                    f"of the way to {floor:.3g} in {steps} steps at lr {max(lrs):g}) but not near it yet: "
                                    "raise --max-steps or the LR")
    finally:
        for m, attr, value in undo:
            setattr(m, attr, value)


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 300, body, argv)


if __name__ == "__main__":
    sys.exit(main())
