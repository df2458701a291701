#!/usr/bin/env python3
"""Module modes: the train/eval mode of every module as the model trains (observed inside your
train_step(batch) when the setup gives one, else as the setup returns the model), BatchNorm layers
of a frozen backbone left in train mode (their running statistics drift although their weights are
frozen; measured on one forward), and whether model.eval() really makes the forward deterministic
(dropout called with training=True, a custom train() override).

Answers Q-opt-frozen-bn (yes | no), Q-opt-train-mode (yes | no), Q-eval-pipeline (train-mode).
Usage: python probe_module_modes.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "module_modes", "1"
NEEDS = ("model", "batch")
OPTIONAL = ('train_step',)

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block

BN = torch.nn.modules.batchnorm._BatchNorm


def body(ctx):
    model = ctx.model
    seen, handles = {}, []
    if ctx.setup.get("train_step") is not None:
        def record(name):
            def hook(module, args):
                seen.setdefault(name, module.training)  # returns None: the inputs stay as they are
            return hook
        for n, m in model.named_modules():
            handles.append(m.register_forward_pre_hook(record(n)))
        try:
            ctx.setup["train_step"](ctx.setup["batch"])
        finally:
            for h in handles:
                h.remove()
        source = "during train_step"
    else:
        seen = {n: m.training for n, m in model.named_modules()}
        source = "as the setup returns the model"
    top = seen.get("", model.training)
    frozen_bn = [n for n, m in model.named_modules()
                 if isinstance(m, BN) and any(True for _ in m.parameters())
                 and not any(p.requires_grad for p in m.parameters())]
    frozen_bn_training = [n for n in frozen_bn if seen.get(n, False)]
    in_eval = [n for n, m in model.named_modules() if n and not seen.get(n, True)]
    # running-stat drift of frozen BN layers over one forward in the observed modes
    drift = {}
    if frozen_bn_training:
        mods = dict(model.named_modules())
        for n, m in model.named_modules():
            if n in seen:
                m.training = seen[n]
        before = {n: mods[n].running_mean.detach().clone() for n in frozen_bn_training if mods[n].running_mean is not None}
        with torch.no_grad():
            forward(model, ctx.inputs)
        drift = {n: float((mods[n].running_mean - v).abs().max()) for n, v in before.items()}
    # does eval() make the forward deterministic?
    model.eval()
    still_training = [n for n, m in model.named_modules() if m.training]
    with torch.no_grad():
        a, b = logits_of(forward(model, ctx.inputs)), logits_of(forward(model, ctx.inputs))
    nondeterministic = torch.is_tensor(a) and torch.is_tensor(b) and not torch.allclose(a.float(), b.float(), atol=1e-5, rtol=1e-4)
    ctx.meas.update(observed=source, model_training=top, modules_in_eval=in_eval[:50], frozen_bn=frozen_bn[:50],
                    frozen_bn_in_train_mode=frozen_bn_training[:50], bn_running_mean_drift=drift,
                    train_mode_after_eval=still_training[:50], eval_forward_nondeterministic=bool(nondeterministic))
    answers = {"Q-opt-frozen-bn": "yes" if frozen_bn_training else "no", "Q-opt-train-mode": "yes" if top else "no"}
    problems = []
    if frozen_bn_training:
        moved = [n for n, d in drift.items() if d > 0]
        problems.append(f"{len(frozen_bn_training)} BatchNorm layer(s) of the frozen part run in train mode "
                        f"({len(moved)} drifted their running_mean in one forward, max {max(drift.values(), default=0):.3g}): "
                        + ", ".join(frozen_bn_training[:4]) + "; call .eval() on the frozen backbone after model.train()")
    if not top:
        problems.append(f"the model is in eval mode {source}: dropout and BatchNorm behave as at inference")
    if still_training or nondeterministic:
        answers["Q-eval-pipeline"] = "train-mode"
        problems.append("after model.eval() the forward is still random" if nondeterministic else
                        f"{len(still_training)} module(s) stay in train mode after model.eval()")
    if problems:
        return "fail", answers, "; ".join(problems)
    note = f" ({len(in_eval)} submodule(s) deliberately in eval)" if in_eval else ""
    return "pass", answers, f"model trains in train mode{note}; no frozen BatchNorm drifts; eval() is deterministic"


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 1, body, argv)


if __name__ == "__main__":
    sys.exit(main())
