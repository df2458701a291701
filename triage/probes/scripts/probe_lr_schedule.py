#!/usr/bin/env python3
"""LR schedule dry run: step the real optimizer and scheduler for N optimizer steps and record the
learning rate each step really uses, per parameter group; report warmup length, peak, decay shape,
a scheduler attached to another optimizer, an LR of 0, a schedule that collapses within the first
epoch (an epoch scheduler stepped per batch), no warmup for an Adam-trained post-LN transformer, and the
"lr_scheduler.step() before optimizer.step()" order warning.

Without train_step the probe steps optimizer and scheduler itself, once per optimizer step
(setup['scheduler_interval'] = 'epoch' with steps_per_epoch: once per epoch); the gradients are
cleared first, so the optimizer step changes nothing. With train_step(batch) it runs your loop and
observes the real cadence. Optional setup keys: steps_per_epoch (else len(dataloader)),
total_steps (else epochs * steps_per_epoch).

Answers Q-lr-schedule (yes | flat | zero | wrong-cadence | no-warmup), Q-stab-warmup (none | short |
enough, when total_steps is known) and, with train_step, Q-opt-loop-order (no) on the order warning.
Usage: python probe_lr_schedule.py --setup my_setup.py:make_setup [--out result.json] [--max-steps 200]
"""
NAME, VERSION = "lr_schedule", "2"
NEEDS = ("model", "optimizer")
OPTIONAL = ('scheduler', 'train_step', 'batch', 'steps_per_epoch', 'epochs', 'total_steps', 'scheduler_interval', 'dataloader')

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block

import warnings  # noqa: E402

EPOCH_STYLE = ("StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "PolynomialLR", "LinearLR")
CYCLIC = ("CosineAnnealingWarmRestarts", "CyclicLR")


def _transformer_layout(model):
    """'post-LN', 'pre-LN', 'unknown' (attention modules of unknown layout) or None (no attention at all).

    Only torch's own transformer layers say where their LayerNorm sits (norm_first); a post-LN layer is known to
    need a warmup with Adam, a pre-LN one trains without (Xiong et al. 2020, "On Layer Normalization in the
    Transformer Architecture": the gradients of post-LN near the output are large at initialisation)."""
    layers = [m for m in model.modules() if isinstance(m, (torch.nn.TransformerEncoderLayer, torch.nn.TransformerDecoderLayer))]
    if layers:
        return "post-LN" if any(not getattr(m, "norm_first", False) for m in layers) else "pre-LN"
    if any(isinstance(m, torch.nn.MultiheadAttention) or "attention" in type(m).__name__.lower() for m in model.modules()):
        return "unknown"
    return None


def body(ctx):
    opt, sched, setup = ctx.opt, ctx.sched, ctx.setup
    loader = setup.get("dataloader")
    spe = setup.get("steps_per_epoch") or (len(loader) if loader is not None and hasattr(loader, "__len__") else None)
    total = setup.get("total_steps") or (setup.get("epochs") * spe if setup.get("epochs") and spe else None)
    n = max(2, ctx.args.max_steps)
    sname = type(sched).__name__ if sched is not None else None
    ctx.meas.update(scheduler=sname, steps_per_epoch=spe, total_steps=total, dry_run_steps=n)
    if sname == "ReduceLROnPlateau":
        return "inconclusive", {}, "ReduceLROnPlateau depends on the validation metric; a dry run cannot show its schedule"
    if sched is not None and getattr(sched, "optimizer", opt) is not opt:
        return "fail", {"Q-lr-schedule": "flat"}, ("the scheduler drives a different optimizer object than the one "
                                                   "that trains (re-created optimizer?): the real LR never changes")
    lrs, counts = [], {"sched": 0, "opt": 0}
    loop = setup.get("train_step")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if loop is not None:
            def record(optimizer, args, kwargs):  # returns None: step() keeps its arguments
                lrs.append([float(g["lr"]) for g in optimizer.param_groups])
                counts["opt"] += 1
            handle = opt.register_step_pre_hook(record)
            if sched is not None:
                orig = sched.step

                def counted(*a, **k):
                    counts["sched"] += 1
                    return orig(*a, **k)
                sched.step = counted
            try:
                for _ in range(n):
                    ctx.check_time()
                    loop(setup["batch"])
            finally:
                handle.remove()
                if sched is not None:
                    del sched.step
        else:
            for p in ctx.model.parameters():
                p.grad = None
            per_epoch = setup.get("scheduler_interval") == "epoch" and spe
            for i in range(n):
                ctx.check_time()
                lrs.append([float(g["lr"]) for g in opt.param_groups])
                opt.step()
                counts["opt"] += 1
                if sched is not None and (not per_epoch or (i + 1) % spe == 0):
                    sched.step()
                    counts["sched"] += 1
    order_warning = any("lr_scheduler.step()" in str(w.message) and "optimizer.step()" in str(w.message) for w in caught)
    if not lrs:
        return "fail", {"Q-opt-loop-order": "no"}, "train_step never called optimizer.step()"
    lr = [row[0] for row in lrs]
    peak, first, last = max(lr), lr[0], lr[-1]
    warm = lr.index(peak) if first < peak else 0
    collapse = next((i for i in range(warm, len(lr)) if lr[i] < 0.01 * peak), None)
    bottom = min(range(warm, len(lr)), key=lambda i: lr[i])
    rises_again = sname not in CYCLIC and any(lr[i] > lr[bottom] + 0.5 * (peak - lr[bottom]) for i in range(bottom, len(lr))) and lr[bottom] < 0.5 * peak
    cadence = counts["sched"] / max(1, counts["opt"])
    ctx.meas.update(lr=[round(v, 12) for v in lr[:: max(1, len(lr) // 100)]], first_lr=first, peak_lr=peak, final_lr=last,
                    warmup_steps=warm, collapse_step=collapse, scheduler_steps_per_optimizer_step=cadence,
                    groups=len(lrs[0]), order_warning=order_warning, per_group_first=lrs[0], per_group_last=lrs[-1])
    answers, problems = {}, []
    if order_warning:
        answers["Q-opt-loop-order"] = "no"
        problems.append("lr_scheduler.step() is called before optimizer.step(): the first LR value is skipped")
    if peak == 0:
        answers["Q-lr-schedule"] = "zero"
        problems.append("the learning rate is 0 at every step")
    elif sched is not None and len(set(lr)) == 1 and counts["sched"] > 0:
        answers["Q-lr-schedule"] = "flat"
        problems.append(f"a {sname} was stepped {counts['sched']} times but the LR stays {peak:g}")
    elif collapse is not None or rises_again:
        per_batch = cadence >= 0.5
        early = (spe and collapse is not None and collapse < spe) or rises_again or (
            loop is not None and per_batch and sname in EPOCH_STYLE and (total is None or total > n))
        where = f"at step {collapse}" if collapse is not None else f"then rises again by step {len(lr)}"
        if early and (per_batch or loop is None):
            answers["Q-lr-schedule"] = "wrong-cadence"
            problems.append(f"the LR falls below 1% of its peak {peak:g} {where}"
                            + (f", within the first epoch ({spe} steps)" if spe else "")
                            + f": {sname} stepped once per batch ({cadence:.2g} scheduler steps per optimizer step) "
                            "decays per batch what was meant per epoch")
        elif total and collapse is not None and collapse < 0.5 * total:
            answers["Q-lr-schedule"] = "zero"
            problems.append(f"the LR collapses to ~0 at step {collapse} of {total}")
    if (collapse is not None or rises_again) and "Q-lr-schedule" not in answers and not problems:
        return "inconclusive", answers, (f"the LR falls below 1% of its peak {peak:g} at step {collapse} when stepped once "
                                         "per optimizer step; give train_step, or steps_per_epoch / total_steps "
                                         "(and scheduler_interval='epoch' if you step it per epoch), to judge the cadence")
    if "Q-lr-schedule" not in answers and sched is None and loop is None:
        ctx.meas["note"] = "no scheduler: constant LR"
    adam = "adam" in type(opt).__name__.lower()
    if total and warm < len(lr) - 1:
        answers["Q-stab-warmup"] = "none" if warm == 0 else "short" if warm < 0.05 * total else "enough"
    layout = _transformer_layout(ctx.model) if adam else None
    ctx.meas["transformer_layout"] = layout
    note = ""
    if "Q-lr-schedule" not in answers and warm == 0 and layout == "post-LN":
        answers["Q-lr-schedule"] = "no-warmup"
        answers.setdefault("Q-stab-warmup", "none")
        problems.append(f"no warmup: an Adam-trained post-LN transformer starts at the peak LR {peak:g} "
                        "(post-LN layers need a warmup; norm_first=True layers train without one)")
    elif warm == 0 and layout in ("pre-LN", "unknown"):
        note = ("; no warmup (a pre-LN transformer trains without one; add one if the first steps spike)" if layout == "pre-LN"
                else "; no warmup for this Adam-trained transformer (needed if its LayerNorms come after the residual "
                     "sum, post-LN, or if the first steps spike)")
    if problems:
        return "fail", answers, "; ".join(problems)
    if sched is not None or loop is not None:
        answers.setdefault("Q-lr-schedule", "yes")
    shape = "constant" if len(set(lr)) == 1 else f"warmup {warm} steps, peak {peak:g}, {last:g} at step {len(lr) - 1}"
    return "pass", answers, (f"LR over {len(lr)} optimizer steps: {shape}" + ("" if sched is not None else " (no scheduler)")
                             + note)


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 200, body, argv)


if __name__ == "__main__":
    sys.exit(main())
