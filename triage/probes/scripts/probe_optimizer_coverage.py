#!/usr/bin/env python3
"""Optimizer coverage: list trainable parameters that are missing from the optimizer, frozen
parameters that are still in it, optimizer tensors that do not belong to the model (built before a
head was replaced), a model with no trainable parameters at all (an adapter wrapper that froze
everything), and how weight decay and learning rates are split over the parameter groups.

Answers Q-opt-optimizer-coverage, Q-weights-change, Q-opt-lora, Q-error-kind (no-grad),
Q-opt-weight-decay, Q-opt-single-lr.
Usage: python probe_optimizer_coverage.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "optimizer_coverage", "1"
NEEDS = ("model", "optimizer")
OPTIONAL = ()

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def body(ctx):
    model, opt = ctx.model, ctx.opt
    named = list(model.named_parameters())
    group_of = {id(p): i for i, g in enumerate(opt.param_groups) for p in g["params"]}
    in_model = {id(p) for _, p in named}
    trainable = [(n, p) for n, p in named if p.requires_grad]
    missing = [n for n, p in trainable if id(p) not in group_of]
    frozen_in = [n for n, p in named if not p.requires_grad and id(p) in group_of]
    stale = sum(1 for g in opt.param_groups for p in g["params"] if id(p) not in in_model)
    n_train = sum(p.numel() for _, p in trainable)
    n_all = sum(p.numel() for _, p in named)
    lora = any("lora" in type(m).__name__.lower() or "lora_" in n for n, m in model.named_modules())
    ctx.meas.update(trainable_params=n_train, total_params=n_all, trainable_share=(n_train / n_all if n_all else 0.0),
                    missing=missing[:50], n_missing=len(missing), frozen_in_optimizer=frozen_in[:50],
                    n_frozen_in_optimizer=len(frozen_in), stale_tensors=stale, groups=len(opt.param_groups),
                    lora_modules=lora)
    answers = {}
    # weight decay and learning-rate split (a static reading of the groups)
    decays = [(g.get("weight_decay") or 0.0) for g in opt.param_groups]
    decayed_1d = [n for n, p in trainable if p.dim() <= 1 and decays[group_of.get(id(p), 0)] > 0 and id(p) in group_of]
    if not any(decays):
        answers["Q-opt-weight-decay"] = "none"
    elif type(opt).__name__ == "Adam":
        answers["Q-opt-weight-decay"] = "adam-l2"
    elif decayed_1d:
        answers["Q-opt-weight-decay"] = "decays-norm"
    else:
        answers["Q-opt-weight-decay"] = "split"
    ctx.meas["decayed_bias_or_norm"] = decayed_1d[:20]
    lrs = {float(g.get("initial_lr", g["lr"])) for g in opt.param_groups}
    ctx.meas["group_lrs"] = sorted(lrs)
    answers["Q-opt-single-lr"] = "yes" if len(lrs) == 1 else "no"
    if not trainable:
        answers.update({"Q-opt-lora": "none-trainable", "Q-weights-change": "no", "Q-error-kind": "no-grad"})
        return "fail", answers, (f"the model has no trainable parameters (0 of {n_all:,}): the adapter or the "
                                 "unfreezing step did not apply, and backward() will fail with 'does not require grad'")
    if lora:
        answers["Q-opt-lora"] = "ok"
    problems = []
    if missing:
        problems.append(f"{len(missing)} trainable tensor(s) are not in the optimizer: {', '.join(missing[:5])}"
                        + (" ..." if len(missing) > 5 else ""))
    if stale:
        problems.append(f"{stale} optimizer tensor(s) are not parameters of this model "
                        "(optimizer built before the model was replaced, re-created or a head was swapped)")
    if problems:
        answers.update({"Q-opt-optimizer-coverage": "no", "Q-weights-change": "no"})
        return "fail", answers, "; ".join(problems)
    answers["Q-opt-optimizer-coverage"] = "yes"
    note = f"; {len(frozen_in)} frozen tensor(s) still in the optimizer (harmless unless unfrozen later)" if frozen_in else ""
    return "pass", answers, f"all {len(trainable)} trainable tensors ({n_train:,} values) are in the optimizer{note}"


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 0, body, argv)


if __name__ == "__main__":
    sys.exit(main())
