# ---- common block: the helpers every probe shares (triage/probes/common_block.py). `triage probe
# ---- export` and `triage probe run` paste it here, so the exported file runs without triage.
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


REGRESSION_LOSSES = ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "PoissonNLLLoss", "GaussianNLLLoss")


def regression_loss(loss_fn):
    """Whether the loss is one of torch's regression losses: its float targets are values, not class labels."""
    return type(loss_fn).__name__ in REGRESSION_LOSSES


def binary_ce(loss_fn, out, targets, value):
    """Whether the loss is binary cross-entropy: by its class, else by matching its value on these outputs."""
    name = type(loss_fn).__name__
    if "BCE" in name:
        return True
    z = logits_of(out)
    if regression_loss(loss_fn) or not (torch.is_tensor(z) and torch.is_tensor(targets)) or z.shape != targets.shape:
        return False
    F = torch.nn.functional
    with torch.no_grad():
        cands = [F.binary_cross_entropy_with_logits(z.float(), targets.float())]
        if float(z.min()) >= 0 and float(z.max()) <= 1:
            cands.append(F.binary_cross_entropy(z.float(), targets.float()))
    return any(math.isclose(float(c), float(value), rel_tol=1e-3, abs_tol=1e-5) for c in cands)


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


def _mean_axes(norm, ndim):
    """The axes over which `norm` subtracts a mean computed from its own input of `ndim` dims, or None.

    BatchNorm uses batch statistics in train mode (or without running stats) and reduces every axis but the
    channel axis 1; InstanceNorm reduces the spatial axes; GroupNorm reduces the channels of a group and the
    spatial axes; LayerNorm reduces its last len(normalized_shape) axes. RMSNorm subtracts no mean (None), nor
    does a BatchNorm that normalises with its running statistics (eval mode).
    """
    nn = torch.nn
    if isinstance(norm, nn.modules.batchnorm._BatchNorm):
        batch_stats = norm.training or norm.running_mean is None
        return set(range(ndim)) - {1} if batch_stats and ndim >= 2 else None
    if isinstance(norm, nn.modules.instancenorm._InstanceNorm):
        if not (norm.training or not norm.track_running_stats):
            return None
        channel = 0 if ndim == norm._get_no_batch_dim() else 1
        return set(range(channel + 1, ndim)) or None
    if isinstance(norm, nn.GroupNorm):
        first = 1 if norm.num_groups < norm.num_channels else 2
        return set(range(first, ndim)) or None
    if isinstance(norm, nn.LayerNorm):
        return set(range(ndim - len(norm.normalized_shape), ndim))
    return None


def _version(t):
    """The in-place modification counter of a tensor (None for inference tensors, which have none)."""
    try:
        return t._version
    except (RuntimeError, AttributeError):
        return None


@contextlib.contextmanager
def watch_cancelled_biases(model, found):
    """While active, record in `found` {parameter name: 'norm (Type)'} each bias of a Linear or conv layer whose
    output goes, unchanged, straight into a normalization that subtracts a mean over axes the bias is constant
    on: conv bias -> BatchNorm/InstanceNorm (or GroupNorm with one channel per group), Linear bias -> BatchNorm1d.

    Such a bias shifts every value the normalization averages by the same amount, so the normalization removes
    it and the loss does not depend on it: its gradient is zero up to rounding by design (the reason ResNets
    build their convolutions with bias=False; Ioffe & Szegedy 2015, section 3.2). A LayerNorm after a Linear,
    or a GroupNorm with several channels per group, removes only the mean of the bias vector, so that bias still
    gets a gradient and is not recorded. Found by following tensors between module calls (same object, not
    modified in place), not by names; only a bias cancelled at every call of its layer counts.
    """
    import weakref

    nn = torch.nn
    names = {id(p): n for n, p in model.named_parameters()}
    produced, uses, cancelled, handles = {}, {}, {}, []

    def producer(module):
        def hook(mod, args, out):
            if not torch.is_tensor(out) or out.dim() == 0:
                return
            name = names.get(id(mod.bias))
            if name is None:
                return
            axis = out.dim() - 1 if isinstance(mod, nn.Linear) else out.dim() - len(mod.kernel_size) - 1
            uses[name] = uses.get(name, 0) + 1
            produced[id(out)] = (weakref.ref(out), _version(out), name, axis)
        return hook

    def consumer(norm_name):
        def hook(mod, args):
            x = args[0] if args else None
            entry = produced.get(id(x)) if torch.is_tensor(x) else None
            if entry is None or entry[0]() is not x or entry[1] is None or _version(x) != entry[1]:
                return
            axes = _mean_axes(mod, x.dim())
            if axes and entry[3] not in axes:
                cancelled.setdefault(entry[2], []).append(f"{norm_name} ({type(mod).__name__})")
        return hook

    norms = (nn.modules.batchnorm._BatchNorm, nn.modules.instancenorm._InstanceNorm, nn.GroupNorm, nn.LayerNorm)
    for name, m in model.named_modules():
        if isinstance(m, (nn.Linear, nn.modules.conv._ConvNd)) and isinstance(getattr(m, "bias", None), nn.Parameter):
            handles.append(m.register_forward_hook(producer(m)))
        elif isinstance(m, norms):
            handles.append(m.register_forward_pre_hook(consumer(name)))
    try:
        yield found
    finally:
        for h in handles:
            h.remove()
        for name, where in cancelled.items():
            if len(where) == uses.get(name):
                found[name] = where[0]


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
