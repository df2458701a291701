#!/usr/bin/env python3
"""Gradient flow per layer: one forward and backward on the batch; report a loss without grad_fn
(nothing trainable reaches it: detached outputs, torch.no_grad, an adapter with no trainable
parameters), trainable tensors whose gradient is None (not in the graph), exactly zero, non-finite
or vanishingly small next to the largest layer, and the total gradient norm. A bias that feeds straight
into a normalization which subtracts it (a conv bias before BatchNorm) gets no gradient by design: it is
listed, not failed.

Answers Q-gradnorm (normal | high | zero | tiny) and Q-error-kind (no-grad).
Usage: python probe_grad_flow.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "grad_flow", "2"
NEEDS = ("model", "loss_fn", "batch")
OPTIONAL = ()

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def body(ctx):
    model = ctx.model
    trainable = ctx.trainable()
    for _, p in trainable:
        p.grad = None
    by_design = {}
    with watch_cancelled_biases(model, by_design):
        out, loss = ctx.loss()
    ctx.meas.update(loss=float(loss.detach().float().mean()), trainable_tensors=len(trainable))
    if not getattr(loss, "requires_grad", False) or loss.grad_fn is None:
        why = ("the model has no trainable parameters" if not trainable else
               "the graph is cut between the trainable parameters and the loss (.detach(), .item(), torch.no_grad, numpy)")
        return "fail", {"Q-gradnorm": "zero", "Q-error-kind": "no-grad"}, (
            f"the loss has no grad_fn, backward() would fail with 'element 0 of tensors does not require grad': {why}")
    loss.backward()
    layers, none, zero, nonfinite = {}, [], [], []
    for n, p in trainable:
        if p.grad is None:
            none.append(n)
            continue
        g = p.grad.detach().float()
        if not bool(torch.isfinite(g).all()):
            nonfinite.append(n)
            continue
        norm = float(g.norm())
        layers[n] = norm
        if norm == 0.0:
            zero.append(n)
    total = math.sqrt(sum(v * v for v in layers.values()))
    biggest = max(layers.values(), default=0.0)
    # vanishing: five orders of magnitude below the largest layer, or below 1e-8 outright (a float32 gradient that
    # small moves nothing at any ordinary LR); by-design zeros (a bias a normalization removes) are not vanishing
    tiny = [n for n, v in layers.items() if 0 < v < max(1e-5 * biggest, 1e-12) or (0 < v < 1e-8)]
    excused = sorted(n for n in set(zero) | set(tiny) if n in by_design)
    zero, tiny = ([n for n in group if n not in by_design] for group in (zero, tiny))
    ctx.meas.update(total_grad_norm=total, grad_norms=dict(sorted(layers.items(), key=lambda kv: kv[1])[:40]),
                    none=none[:50], zero=zero[:50], nonfinite=nonfinite[:50], tiny=tiny[:50],
                    no_grad_by_design={n: by_design[n] for n in excused[:50]})
    problems = []
    if nonfinite:
        problems.append(f"non-finite gradients in {len(nonfinite)} tensor(s): {', '.join(nonfinite[:4])}")
    if none:
        problems.append(f"{len(none)} trainable tensor(s) get no gradient (not used in the forward, or cut off): "
                        + ", ".join(none[:4]) + (" ..." if len(none) > 4 else ""))
    if zero:
        problems.append(f"{len(zero)} tensor(s) get an exactly zero gradient: {', '.join(zero[:4])}")
    if tiny:
        problems.append(f"{len(tiny)} tensor(s) get vanishing gradients (< 1e-5 of the largest, {biggest:.2g}): "
                        + ", ".join(tiny[:4]))
    if none or zero or total == 0:
        answer = "zero"
    elif tiny or total < 1e-4:
        answer = "tiny"
    elif total > 100:
        answer = "high"
        problems.append(f"total gradient norm {total:.3g} at this point is very large")
    else:
        answer = "normal"
    answers = {"Q-gradnorm": answer} if not nonfinite or answer != "normal" else {}
    note = ""
    if excused:
        note = (f"; {len(excused)} bias(es) feed straight into a normalization that subtracts them, so they get no "
                f"gradient by design ({', '.join(f'{n} -> {by_design[n]}' for n in excused[:3])}"
                + (" ..." if len(excused) > 3 else "") + "; bias=False saves them)")
    if problems:
        return "fail", answers, "; ".join(problems) + note
    checked = len(trainable) - len(excused)
    return "pass", answers, f"every one of {checked} trainable tensors gets a finite gradient; total norm {total:.3g}" + note


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 1, body, argv)


if __name__ == "__main__":
    sys.exit(main())
