#!/usr/bin/env python3
"""LR schedule dry run: step the real optimizer and scheduler for N optimizer steps and record the
learning rate each step really uses, per parameter group; report warmup length, peak, decay shape,
a scheduler attached to another optimizer, an LR of 0, a schedule that collapses within the first
epoch (an epoch scheduler stepped per batch), no warmup for an Adam-trained transformer, and the
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
NAME, VERSION = "lr_schedule", "1"
NEEDS = ("model", "optimizer")
OPTIONAL = ('scheduler', 'train_step', 'batch', 'steps_per_epoch', 'epochs', 'total_steps', 'scheduler_interval', 'dataloader')

# ---- common block: identical in every probe_*.py; edit triage/probes/common_block.py, then
# ---- run `python -m triage.probes.sync` (tests/probes/test_registry.py checks the copies).
import argparse
import contextlib
import copy
import importlib.util
import json
import math
import os
import signal
import sys
import time

try:
    import torch
except ImportError:  # pragma: no cover - the probe cannot run at all
    sys.stderr.write("error: this probe needs PyTorch (pip install torch)\n")
    sys.exit(2)

SETUP_KEYS = ("model, optimizer, loss_fn(outputs, targets), batch=(inputs, targets) "
              "[+ scheduler, scaler, num_classes, device, tokenizer, dataloader, train_step(batch)]")


class SetupError(Exception):
    """The setup could not be imported or returned the wrong shape: one line, exit 2."""


class ProbeTimeout(Exception):
    pass


def load_setup(spec, needs):
    path, sep, func = spec.rpartition(":")
    if not sep or not path or not func:
        raise SetupError(f"--setup must look like FILE.py:FUNC, got {spec!r}")
    if not os.path.isfile(path):
        raise SetupError(f"setup file not found: {path}")
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        mspec = importlib.util.spec_from_file_location(f"_probe_setup_{abs(hash(path))}", path)
        module = importlib.util.module_from_spec(mspec)
        mspec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - any import failure is a setup error
        raise SetupError(f"could not import {path}: {type(exc).__name__}: {exc}".splitlines()[0]) from None
    fn = getattr(module, func, None)
    if not callable(fn):
        raise SetupError(f"{path} has no function {func}(); expected {func}() returning a dict with {SETUP_KEYS}")
    try:
        setup = fn()
    except Exception as exc:  # noqa: BLE001
        raise SetupError(f"{func}() raised {type(exc).__name__}: {exc}".splitlines()[0]) from None
    if not isinstance(setup, dict):
        raise SetupError(f"{func}() returned {type(setup).__name__}; expected a dict with {SETUP_KEYS}")
    missing = [k for k in needs if setup.get(k) is None]
    if missing:
        raise SetupError(f"{func}() returned a dict without {', '.join(missing)}; expected {SETUP_KEYS}")
    checks = {"model": lambda v: isinstance(v, torch.nn.Module),
              "optimizer": lambda v: isinstance(v, torch.optim.Optimizer),
              "loss_fn": callable, "train_step": callable,
              "batch": lambda v: isinstance(v, (tuple, list)) and len(v) == 2}
    for key, ok in checks.items():
        if setup.get(key) is not None and not ok(setup[key]):
            want = {"model": "a torch.nn.Module", "optimizer": "a torch.optim.Optimizer",
                    "batch": "a pair (inputs, targets)"}.get(key, "a callable")
            raise SetupError(f"setup[{key!r}] is {type(setup[key]).__name__}; expected {want}")
    return setup


def to_device(obj, device):
    if torch.is_tensor(obj):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device) for v in obj)
    if isinstance(obj, dict) or hasattr(obj, "keys"):  # dict or a transformers BatchEncoding
        return {k: to_device(obj[k], device) for k in obj.keys()}
    return obj


def forward(model, inputs):
    if isinstance(inputs, dict) or hasattr(inputs, "keys"):
        return model(**inputs)
    if isinstance(inputs, (tuple, list)):
        return model(*inputs)
    return model(inputs)


def logits_of(out):
    if torch.is_tensor(out):
        return out
    if getattr(out, "logits", None) is not None:
        return out.logits
    if isinstance(out, dict):
        return out.get("logits", next((v for v in out.values() if torch.is_tensor(v)), None))
    if isinstance(out, (tuple, list)):
        return next((v for v in out if torch.is_tensor(v)), None)
    return None


class Ctx:
    """What a probe body gets: the setup, the device, the arguments, the deadline, the measurements."""

    def __init__(self, setup, device, args):
        self.setup, self.device, self.args = setup, device, args
        self.model, self.opt = setup.get("model"), setup.get("optimizer")
        self.loss_fn, self.sched, self.scaler = setup.get("loss_fn"), setup.get("scheduler"), setup.get("scaler")
        batch = setup.get("batch") or (None, None)
        self.inputs, self.targets = batch[0], batch[1]
        self.deadline = time.monotonic() + args.timeout
        self.meas = {}

    def check_time(self):
        if time.monotonic() > self.deadline:
            raise ProbeTimeout()

    def loss(self, inputs=None, targets=None):
        inputs = self.inputs if inputs is None else inputs
        targets = self.targets if targets is None else targets
        out = forward(self.model, inputs)
        return out, self.loss_fn(out, targets)

    def step(self, zero=True):
        """One plain optimisation step on the fixed batch; returns the loss before the step."""
        if zero:
            self.opt.zero_grad(set_to_none=True)
        _, loss = self.loss()
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.opt)
            self.scaler.update()
        else:
            loss.backward()
            self.opt.step()
        return float(loss.detach())

    def trainable(self):
        return [(n, p) for n, p in self.model.named_parameters() if p.requires_grad]


@contextlib.contextmanager
def preserved(ctx):
    """Restore weights, grads, modes, requires_grad, optimizer/scheduler/scaler state and RNG."""
    model, saved = ctx.model, {}
    if model is not None:
        saved["model"] = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
        saved["modes"] = [m.training for m in model.modules()]
        saved["req"] = [p.requires_grad for p in model.parameters()]
        saved["grads"] = [None if p.grad is None else p.grad.detach().clone() for p in model.parameters()]
    for key, obj in (("opt", ctx.opt), ("sched", ctx.sched), ("scaler", ctx.scaler)):
        if obj is not None and hasattr(obj, "state_dict"):
            saved[key] = copy.deepcopy(obj.state_dict())
    rng = torch.get_rng_state()
    cuda_rng = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    try:
        yield
    finally:
        if model is not None:
            model.load_state_dict(saved["model"])
            for m, mode in zip(model.modules(), saved["modes"]):
                m.training = mode
            for p, req, g in zip(model.parameters(), saved["req"], saved["grads"]):
                p.requires_grad_(req)
                p.grad = g
        for key, obj in (("opt", ctx.opt), ("sched", ctx.sched), ("scaler", ctx.scaler)):
            if key in saved:
                obj.load_state_dict(saved[key])
        torch.set_rng_state(rng)
        if cuda_rng is not None:
            torch.cuda.set_rng_state_all(cuda_rng)


def _clean(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else ("nan" if obj != obj else ("inf" if obj > 0 else "-inf"))
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if torch.is_tensor(obj):
        return _clean(obj.tolist())
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    return str(obj)


def _alarm(signum, frame):
    raise ProbeTimeout()


def run_probe(name, version, doc, needs, default_steps, body, argv=None):
    """Parse arguments, load the setup, run body(ctx) -> (status, answers, message), report."""
    ap = argparse.ArgumentParser(prog=f"probe_{name}.py", description=doc)
    ap.add_argument("--setup", required=True, metavar="FILE.py:FUNC", help="function returning the setup dict")
    ap.add_argument("--out", metavar="FILE", help="write the JSON result here")
    ap.add_argument("--max-steps", type=int, default=default_steps, help=f"step budget (default {default_steps})")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds before giving up (default 300)")
    ap.add_argument("--device", help="override the device (default: setup['device'], else cuda if available, else cpu)")
    args = ap.parse_args(argv)
    started = time.monotonic()

    def report(status, answers, meas, message):
        meas = dict(meas, seconds=round(time.monotonic() - started, 3), torch=torch.__version__)
        result = _clean({"probe": name, "version": version, "status": status, "answers": answers,
                         "measurements": meas, "message": message})
        if status != "error":  # errors went to stderr as one line already
            print(f"{name}: {status.upper()} - {message}")
            for qid, value in answers.items():
                print(f"  {qid} = {value}")
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                json.dump(result, fh, indent=2, allow_nan=False)
                fh.write("\n")
        return {"pass": 0, "inconclusive": 0, "fail": 1}.get(status, 2)

    try:
        setup = load_setup(args.setup, needs)
    except SetupError as exc:
        sys.stderr.write(f"error: {exc}\n")
        if args.out:
            report("error", {}, {}, str(exc))
        return 2
    device = torch.device(args.device or setup.get("device") or ("cuda" if torch.cuda.is_available() else "cpu"))
    if setup.get("model") is not None:
        setup["model"].to(device)
    if setup.get("batch") is not None:
        setup["batch"] = to_device(tuple(setup["batch"]), device)
    ctx = Ctx(setup, device, args)
    ctx.meas["device"] = str(device)
    use_alarm = hasattr(signal, "SIGALRM") and args.timeout > 0
    if use_alarm:
        try:
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, args.timeout + 1.0)
        except ValueError:  # not the main thread
            use_alarm = False
    try:
        with preserved(ctx):
            status, answers, message = body(ctx)
    except ProbeTimeout:
        status, answers = "inconclusive", {}
        message = f"timed out after {args.timeout:g}s; raise --timeout or lower --max-steps"
    except Exception as exc:  # noqa: BLE001 - the user's code failed inside the probe
        status, answers = "error", {}
        message = f"{type(exc).__name__}: {exc}".splitlines()[0]
        sys.stderr.write(f"error: {message}\n")
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    return report(status, answers, ctx.meas, message)
# ---- end of common block

import warnings  # noqa: E402

EPOCH_STYLE = ("StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "PolynomialLR", "LinearLR")
CYCLIC = ("CosineAnnealingWarmRestarts", "CyclicLR")


def _transformer(model):
    return any(isinstance(m, (torch.nn.MultiheadAttention, torch.nn.TransformerEncoderLayer, torch.nn.TransformerDecoderLayer))
               or "attention" in type(m).__name__.lower() for m in model.modules())


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
    if "Q-lr-schedule" not in answers and warm == 0 and adam and _transformer(ctx.model):
        answers["Q-lr-schedule"] = "no-warmup"
        answers.setdefault("Q-stab-warmup", "none")
        problems.append(f"no warmup: an Adam-trained transformer starts at the peak LR {peak:g}")
    if problems:
        return "fail", answers, "; ".join(problems)
    if sched is not None or loop is not None:
        answers.setdefault("Q-lr-schedule", "yes")
    shape = "constant" if len(set(lr)) == 1 else f"warmup {warm} steps, peak {peak:g}, {last:g} at step {len(lr) - 1}"
    return "pass", answers, f"LR over {len(lr)} optimizer steps: {shape}" + ("" if sched is not None else " (no scheduler)")


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 200, body, argv)


if __name__ == "__main__":
    sys.exit(main())
