"""Callback overhead benchmark: what triage's checks cost inside a training loop.

1. The Hugging Face callback on a tiny GPT-2 trained by a real `transformers.Trainer` on CPU (the
   worst case for a relative overhead: a step of a few milliseconds). Runs with and without the
   callback alternate (A/B, same seed); per run, the mean time between consecutive `on_step_end`
   calls (which includes every `on_log`, where the callback works). Reported: the time spent
   inside the callback as a share of the training time (exact), and the A/B difference of step
   times (noisy on a shared machine: its spread is printed beside it). One-off costs (loading the
   knowledge at the start, the final check and report at the end) are timed and shown apart.
2. `Monitor.log` in a plain loop: microseconds per call, amortised over every check the default
   budget runs, beside the same loop calling an empty function with the same arguments.

Targets: overhead <= 2% of the step time; <= 20 us per `Monitor.log` call.

    python bench/callbacks.py [--runs 4] [--steps 300] [--logging-steps 1 10] [--calls 200000]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


# -- 1. the Hugging Face Trainer ------------------------------------------------------------------
def hf_run(steps: int, logging_steps: int, with_callback: bool, tmp: str):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments
    from transformers.trainer_callback import PrinterCallback

    from triage.integrations import HFCallback

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                                       bos_token_id=0, eos_token_id=0))
    g = torch.Generator().manual_seed(0)
    data = (torch.randint(0, 64, (4096, 1), generator=g) + torch.arange(32)) % 64

    class Data(torch.utils.data.Dataset):
        def __len__(self):
            return len(data)

        def __getitem__(self, i):
            return {"input_ids": data[i], "labels": data[i]}

    class Clock(TrainerCallback):
        def __init__(self):
            self.marks: list[float] = []

        def on_step_end(self, args, state, control, **kw):
            self.marks.append(time.perf_counter())

    class Timed(HFCallback):
        """The real callback, with the time spent in each hook added up."""

        spent = {"begin": 0.0, "log": 0.0, "end": 0.0}

        def on_train_begin(self, *a, **kw):
            t = time.perf_counter()
            super().on_train_begin(*a, **kw)
            self.spent["begin"] += time.perf_counter() - t

        def on_log(self, *a, **kw):
            t = time.perf_counter()
            super().on_log(*a, **kw)
            self.spent["log"] += time.perf_counter() - t

        def on_train_end(self, *a, **kw):
            t = time.perf_counter()
            super().on_train_end(*a, **kw)
            self.spent["end"] += time.perf_counter() - t

    clock = Clock()
    callbacks = [clock]
    timed = None
    if with_callback:
        Timed.spent = {"begin": 0.0, "log": 0.0, "end": 0.0}
        t = time.perf_counter()
        timed = Timed(stop_on=("nan", "divergence"), report=f"{tmp}/report.html", quiet=True)
        Timed.spent["begin"] += time.perf_counter() - t
        callbacks.append(timed)
    args = TrainingArguments(output_dir=tmp, max_steps=steps, per_device_train_batch_size=8, learning_rate=1e-3,
                             logging_steps=logging_steps, report_to=[], save_strategy="no", disable_tqdm=True,
                             use_cpu=True, seed=0)
    trainer = Trainer(model=model, args=args, train_dataset=Data(), callbacks=callbacks)
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    gaps = [b - a for a, b in zip(clock.marks[20:], clock.marks[21:])]  # after 20 warm-up steps
    return {"step": statistics.fmean(gaps), "train": clock.marks[-1] - clock.marks[20],
            "spent": dict(Timed.spent) if timed else None,
            "evaluations": timed.monitor.evaluations if timed else 0}


def bench_hf(runs: int, steps: int, logging_steps: int) -> float:
    import tempfile

    import torch

    torch.set_num_threads(1)
    hf_run(30, logging_steps, True, tempfile.mkdtemp())  # warm imports and caches
    base, cb = [], []
    for _ in range(runs):
        base.append(hf_run(steps, logging_steps, False, tempfile.mkdtemp()))
        cb.append(hf_run(steps, logging_steps, True, tempfile.mkdtemp()))
    step_base = statistics.median(r["step"] for r in base)
    step_cb = statistics.median(r["step"] for r in cb)
    # the callback's work in the timed window: on_log's total, less the share before the warm-up mark
    inside = [r["spent"]["log"] * (steps - 21) / steps / r["train"] for r in cb]
    ab = [(c["step"] - b["step"]) / b["step"] for b, c in zip(base, cb)]
    spread = statistics.pstdev([r["step"] for r in base]) / step_base
    print(f"\nHF Trainer, tiny GPT-2 on CPU, {steps} steps, logging_steps={logging_steps}, {runs} runs each way")
    print(f"  step time without the callback  {step_base * 1e3:8.2f} ms (run-to-run spread {spread:.1%})")
    print(f"  step time with the callback     {step_cb * 1e3:8.2f} ms")
    print(f"  time inside the callback        {statistics.median(inside):8.2%} of the training time "
          f"({cb[-1]['evaluations']} checks in the last run)")
    print(f"  A/B step-time difference        {statistics.median(ab):8.2%} (median of {runs} pairs; noise ~{spread:.1%})")
    one_off = cb[-1]["spent"]
    print(f"  one-off: start {one_off['begin'] * 1e3:.0f} ms (the knowledge, cached), end {one_off['end'] * 1e3:.0f} ms "
          "(every detector once, report written)")
    return statistics.median(inside)


# -- 2. Monitor.log ---------------------------------------------------------------------------------
def bench_monitor(calls: int) -> float:
    from triage.integrations import Monitor

    values = [(2.3 * math.exp(-i / (calls / 3)) + 0.3 + 0.01 * math.sin(i), 1.0 + 0.1 * math.cos(i)) for i in range(calls)]

    def empty(step, **kw):
        return False

    t0 = time.perf_counter()
    for i, (loss, grad) in enumerate(values):
        empty(i, loss=loss, grad_norm=grad, lr=1e-4)
    ref = (time.perf_counter() - t0) / calls

    m = Monitor(quiet=True)  # the default budget
    m.log(0, loss=2.3, grad_norm=1.0, lr=1e-4)  # the first check pays one-off imports
    t0 = time.perf_counter()
    for i, (loss, grad) in enumerate(values, 1):
        m.log(i, loss=loss, grad_norm=grad, lr=1e-4)
    per = (time.perf_counter() - t0) / calls
    checks = m.evaluations
    bare = Monitor(quiet=True, budget=1e-9)  # checks pushed out of the window: the recording alone
    bare.log(0, loss=2.3, grad_norm=1.0, lr=1e-4)
    bare.log(1, loss=2.3, grad_norm=1.0, lr=1e-4)
    t0 = time.perf_counter()
    for i, (loss, grad) in enumerate(values, 2):
        bare.log(i, loss=loss, grad_norm=grad, lr=1e-4)
    rec = (time.perf_counter() - t0) / calls
    print(f"\nMonitor.log, {calls:,} calls with loss, grad_norm and lr (default budget: {checks} checks ran)")
    print(f"  amortised per call              {per * 1e6:8.2f} us")
    print(f"  recording alone                 {rec * 1e6:8.2f} us")
    print(f"  an empty function, same args    {ref * 1e6:8.2f} us  (ratio {per / ref:.1f}x)")
    print(f"  points kept per metric          {m._cols['loss'].n:,} (bounded at 20,000)")
    return per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--logging-steps", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--skip-hf", action="store_true")
    args = parser.parse_args()
    ok = True
    per = bench_monitor(args.calls)
    ok &= per <= 20e-6
    if not args.skip_hf:
        for ls in args.logging_steps:
            ok &= bench_hf(args.runs, args.steps, ls) <= 0.02
    print(f"\ntargets (<= 2% of the step time, <= 20 us per Monitor.log call): {'ok' if ok else 'OVER TARGET'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
