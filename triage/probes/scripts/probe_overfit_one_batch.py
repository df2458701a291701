#!/usr/bin/env python3
"""Overfit one batch: train on one fixed batch with dropout and weight decay off (no augmentation:
the batch is reused as is) and check the loss falls to near zero. A model that cannot memorise one
batch has a bug in the model, the loss or the optimisation, not in the data.

Answers Q-overfit-one-batch (pass | fail).
Usage: python probe_overfit_one_batch.py --setup my_setup.py:make_setup [--out result.json] [--max-steps 300]
"""
NAME, VERSION = "overfit_one_batch", "1"
NEEDS = ("model", "optimizer", "loss_fn", "batch")
OPTIONAL = ('scaler',)

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


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
        ctx.meas.update(dropout_disabled=len(undo), lr=lrs, max_steps=ctx.args.max_steps)
        if max(lrs) == 0:
            return "fail", {"Q-overfit-one-batch": "fail"}, "the optimizer's learning rate is 0: nothing can be learned"
        losses = []
        for i in range(max(1, ctx.args.max_steps)):
            ctx.check_time()
            loss = ctx.step()
            losses.append(loss)
            ctx.meas.update(steps=i + 1, first_loss=losses[0], best_loss=min(losses))
            if not math.isfinite(loss):
                ctx.meas["losses"] = losses[:: max(1, len(losses) // 50)]
                return "fail", {"Q-overfit-one-batch": "fail"}, f"the loss became {loss} at step {i} while fitting one batch"
            if loss <= max(0.1 * abs(losses[0]), 1e-3) and losses[0] > 0 and loss >= 0 and i > 0:
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
        if first > 0 and final < 0:
            return "fail", {"Q-overfit-one-batch": "fail"}, (
                f"the loss went negative ({first:.3g} -> {final:.3g}): it is not a proper likelihood "
                "(NLLLoss on raw logits?); run the output_form probe")
        if final <= max(0.1 * abs(first), 1e-3):
            return "pass", {"Q-overfit-one-batch": "pass"}, f"memorised the batch: loss {first:.3g} -> {final:.3g} in {steps} steps"
        window = max(5, len(losses) // 5)
        recent = losses[-window:]
        gain = (recent[0] - min(recent)) / max(abs(recent[0]), 1e-12)
        ctx.meas["recent_relative_gain"] = gain
        if best > 0.5 * first or gain < 0.01:
            return "fail", {"Q-overfit-one-batch": "fail"}, (
                f"cannot overfit one batch: loss {first:.3g} -> {final:.3g} (best {best:.3g}) after {steps} steps "
                f"at lr {max(lrs):g} with dropout and weight decay off"
                + ("; it has stopped improving" if gain < 0.01 else ""))
        return "inconclusive", {}, (f"loss falls ({first:.3g} -> {final:.3g}) but is not near zero after {steps} steps; "
                                    "raise --max-steps")
    finally:
        for m, attr, value in undo:
            setattr(m, attr, value)


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 300, body, argv)


if __name__ == "__main__":
    sys.exit(main())
