#!/usr/bin/env python3
"""Dead activations: hook every ReLU-family, Tanh and Sigmoid module, run one forward on the batch
and measure per layer the fraction of exactly-zero outputs, the fraction of units that are zero
for every sample of the batch (dead units), and the saturated fraction of Tanh/Sigmoid outputs.
Activations called as functions (F.relu) are invisible to the hooks.

Answers Q-opt-dead-relu (yes | no).
Usage: python probe_dead_activations.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "dead_activations", "1"
NEEDS = ("model", "batch")
OPTIONAL = ()

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block

RELU = (torch.nn.ReLU, torch.nn.ReLU6, torch.nn.Hardtanh, torch.nn.Threshold)
SQUASH = (torch.nn.Tanh, torch.nn.Sigmoid, torch.nn.Hardsigmoid)


def body(ctx):
    stats, handles = {}, []

    def hook(name, kind):
        def fn(module, inputs, out):
            if not torch.is_tensor(out) or out.numel() == 0:
                return
            o = out.detach().float()
            unit_dim = 1 if o.dim() in (4, 5) else o.dim() - 1
            flat = o.movedim(unit_dim, -1).reshape(-1, o.shape[unit_dim]) if o.dim() > 1 else o.reshape(-1, 1)
            if kind == "relu":
                zero = flat == 0
                row = {"kind": kind, "zero_fraction": float(zero.float().mean()),
                       "dead_units": float(zero.all(0).float().mean())}
            else:
                lo, hi = (-0.99, 0.99) if isinstance(module, torch.nn.Tanh) else (0.01, 0.99)
                sat = (flat <= lo) | (flat >= hi)
                row = {"kind": kind, "saturated_fraction": float(sat.float().mean()),
                       "dead_units": float(sat.all(0).float().mean())}
            stats.setdefault(name, row)
        return fn

    for name, m in ctx.model.named_modules():
        if isinstance(m, RELU):
            handles.append(m.register_forward_hook(hook(name, "relu")))
        elif isinstance(m, SQUASH):
            handles.append(m.register_forward_hook(hook(name, "squash")))
    try:
        with torch.no_grad():
            forward(ctx.model, ctx.inputs)
    finally:
        for h in handles:
            h.remove()
    ctx.meas["layers"] = stats
    if not handles:
        return "inconclusive", {}, "no nn.ReLU / Tanh / Sigmoid modules to hook (functional activations are invisible)"
    if not stats:
        return "inconclusive", {}, "the activation modules were not called in the forward pass"
    bad = {n: s for n, s in stats.items()
           if s["dead_units"] >= 0.5 or s.get("zero_fraction", 0) >= 0.95 or s.get("saturated_fraction", 0) >= 0.9}
    worst = max(stats.items(), key=lambda kv: kv[1]["dead_units"])
    if bad:
        text = "; ".join(f"{n}: {s['dead_units']:.0%} dead units" + (f", {s['zero_fraction']:.0%} zeros" if "zero_fraction" in s
                         else f", {s['saturated_fraction']:.0%} saturated") for n, s in list(bad.items())[:4])
        return "fail", {"Q-opt-dead-relu": "yes"}, (f"{len(bad)} of {len(stats)} activation layer(s) are (almost) dead: {text}; "
                                                   "check init, LR and the bias before the activation")
    return "pass", {"Q-opt-dead-relu": "no"}, (f"{len(stats)} activation layers alive; worst {worst[0]} with "
                                               f"{worst[1]['dead_units']:.0%} dead units")


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 1, body, argv)


if __name__ == "__main__":
    sys.exit(main())
