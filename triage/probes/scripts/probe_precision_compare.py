#!/usr/bin/env python3
"""fp32 vs bf16 on one batch: run forward and backward on copies of the model, once in fp32 and
once under bf16 autocast (fp16 on GPUs without bf16; the model as stored when its weights are
already half precision), and compare the loss and the gradients (relative error, cosine). Dropout
layers are switched off in both copies, so the two passes differ only in precision. A loss
that turns non-finite or moves by more than 5%, or gradients whose cosine to fp32 falls below 0.95, mean the model
is numerically fragile in low precision. The user's model is never touched (copies only).

Answers Q-ops-param-dtype (fp32 | half), Q-precision (bf16 | fp16, when the weights are stored so)
and Q-stab-fp32-rerun (fixed, when low precision breaks what fp32 computes).
Usage: python probe_precision_compare.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "precision_compare", "1"
NEEDS = ("model", "loss_fn", "batch")
OPTIONAL = ('device',)

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def _quiet_dropout(model):
    """Switch off the random layers of a copy: on a GPU a dropout mask depends on the dtype of its input (kernels
    draw random numbers per vector of elements, and a bf16 vector holds more elements than an fp32 one), so the
    two passes would drop different units and their gradients would differ for no numerical reason."""
    count = 0
    for m in model.modules():
        if isinstance(m, torch.nn.modules.dropout._DropoutNd) or "drop" in type(m).__name__.lower():
            m.eval()
            count += 1
        elif isinstance(m, torch.nn.MultiheadAttention) and m.dropout:
            m.dropout = 0.0
            count += 1
    return count


def _run(ctx, model, dtype):
    model.zero_grad(set_to_none=True)
    torch.manual_seed(0)
    if dtype is None:
        out = forward(model, ctx.inputs)
    else:
        with torch.autocast(device_type=ctx.device.type, dtype=dtype):
            out = forward(model, ctx.inputs)
    loss = ctx.loss_fn(out, ctx.targets).float()
    if loss.requires_grad:
        loss.backward()
    grads = {n: p.grad.detach().float().reshape(-1) for n, p in model.named_parameters() if p.grad is not None}
    return float(loss.detach()), grads


def body(ctx):
    model = ctx.model
    dtypes = {p.dtype for p in model.parameters() if p.requires_grad} or {p.dtype for p in model.parameters()}
    half = next((d for d in dtypes if d in (torch.bfloat16, torch.float16)), None)
    low = torch.bfloat16
    if ctx.device.type == "cuda" and not torch.cuda.is_bf16_supported():
        low = torch.float16
    ref = copy.deepcopy(model).float()
    test = copy.deepcopy(model)
    quieted = _quiet_dropout(ref)
    _quiet_dropout(test)
    l32, g32 = _run(ctx, ref, None)
    llow, glow = _run(ctx, test, None if half is not None else low)
    name = {torch.bfloat16: "bf16", torch.float16: "fp16"}[half or low]
    answers = {"Q-ops-param-dtype": "half" if half is not None else "fp32"}
    if half is not None:
        answers["Q-precision"] = name
    common = [n for n in g32 if n in glow]
    if common:
        a = torch.cat([g32[n] for n in common])
        b = torch.cat([glow[n] for n in common])
        cos = float(torch.nn.functional.cosine_similarity(a, b, dim=0)) if a.norm() > 0 and b.norm() > 0 else 1.0
        rel = float((a - b).norm() / a.norm()) if a.norm() > 0 else 0.0
        worst = min(common, key=lambda n: float(torch.nn.functional.cosine_similarity(g32[n], glow[n], dim=0))
                    if g32[n].norm() > 0 and glow[n].norm() > 0 else 1.0)
    else:
        cos, rel, worst = 1.0, 0.0, None
    dl = abs(llow - l32) / max(abs(l32), 1e-8) if math.isfinite(llow) else float("inf")
    ctx.meas.update(low_precision=name, weights=sorted(str(d) for d in dtypes), loss_fp32=l32, loss_low=llow,
                    loss_rel_diff=dl, grad_cosine=cos, grad_rel_error=rel, least_similar_tensor=worst,
                    dropout_layers_off=quieted)
    text = f"loss fp32 {l32:.5g} vs {name} {llow:.5g} (rel diff {dl:.2g}), gradient cosine {cos:.4f}"
    if not math.isfinite(l32):
        return "inconclusive", answers, "the fp32 loss itself is not finite; fix that first"
    if not math.isfinite(llow) or dl > 0.05 or cos < 0.95:
        answers["Q-stab-fp32-rerun"] = "fixed"
        why = f"{name} loss is not finite" if not math.isfinite(llow) else "low precision changes the result"
        return "fail", answers, f"{why}: {text}; keep the sensitive ops (loss, softmax, norms, large offsets) in fp32"
    return "pass", answers, text


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 1, body, argv)


if __name__ == "__main__":
    sys.exit(main())
