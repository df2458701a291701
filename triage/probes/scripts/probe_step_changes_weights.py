#!/usr/bin/env python3
"""Does step() change the weights: snapshot every parameter, run one optimisation step (your
setup's train_step(batch) when given, else zero_grad/forward/backward/step) and list trainable
tensors that did not change and frozen tensors that did. With train_step it also checks the loop:
gradients left over from an earlier step (zero_grad missing) and a step that never calls
optimizer.step(). A bias that a following normalization subtracts (a conv bias before BatchNorm) has no
gradient by design and may stay put under SGD: it is listed, not failed.

Answers Q-weights-change (yes | no | frozen-change) and, with train_step, Q-opt-loop-order.
Usage: python probe_step_changes_weights.py --setup my_setup.py:make_setup [--out result.json] [--max-steps 3]
"""
NAME, VERSION = "step_changes_weights", "2"
NEEDS = ("model", "optimizer", "loss_fn", "batch")
OPTIONAL = ('train_step', 'scaler')

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def _watch_loop(ctx, steps):
    """Run train_step `steps` times; return (optimizer steps, zero_grad calls, tensors with stale grads)."""
    model, opt = ctx.model, ctx.opt
    names = {id(p): n for n, p in model.named_parameters() if p.requires_grad}
    fresh, leaked, count = {}, set(), {"step": 0, "zero": 0}
    handles = []
    for n, p in model.named_parameters():
        if p.requires_grad:
            def hook(g, key=id(p)):
                fresh[key] = g.detach().clone() if key not in fresh else fresh[key] + g.detach()
            handles.append(p.register_hook(hook))

    def pre_step(optimizer, args, kwargs):
        count["step"] += 1
        for g in optimizer.param_groups:
            for p in g["params"]:
                s = fresh.get(id(p))
                if p.grad is None or s is None or id(p) not in names:
                    continue
                s = s.to(p.grad.dtype)
                ss = float((s.float() * s.float()).sum())
                if ss == 0:
                    continue
                c = float((p.grad.float() * s.float()).sum()) / ss  # clipping / unscaling shrink by c <= 1
                resid = float((p.grad.float() - c * s.float()).norm()) / (math.sqrt(ss) * max(abs(c), 1e-12))
                if c > 1.01 or resid > 1e-3:
                    leaked.add(names[id(p)])
        fresh.clear()

    handles.append(opt.register_step_pre_hook(pre_step))
    originals = {}
    for obj in (opt, model):
        originals[obj] = obj.zero_grad

        def zero(*a, _orig=obj.zero_grad, **k):
            count["zero"] += 1
            return _orig(*a, **k)
        obj.zero_grad = zero
    try:
        opt.zero_grad(set_to_none=True)
        count["zero"] = 0
        for _ in range(steps):
            ctx.check_time()
            ctx.setup["train_step"](ctx.setup["batch"])
    finally:
        for h in handles:
            h.remove()
        for obj in originals:
            del obj.zero_grad  # drop the instance attribute, back to the class method
    return count["step"], count["zero"], sorted(leaked)


def body(ctx):
    model = ctx.model
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    answers, problems, by_design = {}, [], {}
    if ctx.setup.get("train_step") is not None:
        steps = max(2, min(ctx.args.max_steps, 5))
        with watch_cancelled_biases(model, by_design):
            n_steps, n_zero, leaked = _watch_loop(ctx, steps)
        ctx.meas.update(loop_calls=steps, optimizer_steps=n_steps, zero_grad_calls=n_zero, stale_grad_tensors=leaked[:20])
        if n_steps == 0:
            problems.append(f"train_step ran {steps} times without calling this optimizer's step()")
        if leaked:
            problems.append(f"gradients from earlier steps are still in .grad at optimizer.step() for {len(leaked)} "
                            f"tensor(s) (zero_grad() missing or misplaced; {n_zero} zero_grad call(s) in {steps} steps)")
        answers["Q-opt-loop-order"] = "no" if problems else "yes"
    else:
        with watch_cancelled_biases(model, by_design):
            ctx.step()
        ctx.meas["optimizer_steps"] = 1
    unchanged, frozen_changed, reasons, excused = [], [], {}, []
    in_opt = {id(p) for g in ctx.opt.param_groups for p in g["params"]}
    for n, p in model.named_parameters():
        same = torch.equal(before[n], p.detach())
        if p.requires_grad and same:
            if n in by_design and id(p) in in_opt and p.grad is not None:
                excused.append(n)  # its gradient is zero up to rounding by design; SGD leaves it where it is
                continue
            unchanged.append(n)
            reasons[n] = ("not in the optimizer" if id(p) not in in_opt else "grad is None" if p.grad is None
                          else "grad is zero" if not bool(p.grad.abs().sum()) else "update below precision / lr 0")
        elif not p.requires_grad and not same:
            frozen_changed.append(n)
    if excused:
        ctx.meas["unchanged_by_design"] = {n: by_design[n] for n in excused[:50]}
    n_train = sum(1 for p in model.parameters() if p.requires_grad)
    ctx.meas.update(trainable_tensors=n_train, unchanged=unchanged[:50], n_unchanged=len(unchanged),
                    unchanged_reasons=dict(list(reasons.items())[:50]), frozen_changed=frozen_changed[:50])
    if frozen_changed:
        answers["Q-weights-change"] = "frozen-change"
        problems.append(f"{len(frozen_changed)} frozen tensor(s) changed: {', '.join(frozen_changed[:5])}")
    elif unchanged or n_train == 0:
        answers["Q-weights-change"] = "no"
        if n_train == 0:
            problems.append("the model has no trainable parameters")
        else:
            problems.append(f"{len(unchanged)} of {n_train} trainable tensor(s) did not change: "
                            + ", ".join(f"{n} ({reasons[n]})" for n in unchanged[:4]) + (" ..." if len(unchanged) > 4 else ""))
    else:
        answers["Q-weights-change"] = "yes"
    note = (f"; {len(excused)} bias(es) before a normalization that subtracts them did not move (no gradient by "
            f"design: {', '.join(excused[:3])}" + (" ..." if len(excused) > 3 else "") + ")") if excused else ""
    if problems:
        return "fail", answers, "; ".join(problems) + note
    return "pass", answers, f"all {n_train - len(excused)} trainable tensors changed after step(); frozen ones did not" + note


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 3, body, argv)


if __name__ == "__main__":
    sys.exit(main())
