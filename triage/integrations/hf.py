"""A Hugging Face `TrainerCallback` that runs triage's checks on what the Trainer logs.

    from transformers import Trainer
    from triage.integrations import HFCallback

    trainer = Trainer(..., callbacks=[HFCallback(stop_on=("nan", "divergence"))])

It reads each `on_log` record (loss, grad_norm, learning_rate, eval metrics: exactly the rows of
`trainer_state.json`, so metric names and the Trainer's defaults are understood as when that file
is scanned), prints every new finding once with its most likely cause and knob, sets
`control.should_training_stop` on a `stop_on` finding (the Trainer leaves its loop after the
current step), and at the end of training writes a report into `output_dir` (or `report=PATH`).
The TrainingArguments are the run's config (gradient accumulation, clipping, precision), minus
anything that looks like a credential.

Multi-process runs: every rank gets the same logged values (the Trainer averages the loss over
processes), so every rank runs the checks at every log (`budget=None`) and reaches the same
decision at the same step; only the main process prints, posts and writes the report.
"""

from __future__ import annotations

import os

from transformers import TrainerCallback

from triage.integrations.monitor import Monitor


class TriageCallback(TrainerCallback):
    """See the module docstring. Arguments are those of `Monitor`, plus `report`: a path, True
    (`<output_dir>/triage-report.html`, the default) or False (no report)."""

    def __init__(self, stop_on=(), notify: str | None = None, report=True, name: str | None = None, **monitor_kw):
        self.stop_on = stop_on
        self.notify = notify
        self.report = report
        self.name = name
        self.monitor_kw = monitor_kw
        self.monitor: Monitor | None = None
        self.stopped_at: int | None = None
        from triage import api

        self._kb = monitor_kw.pop("kb", None) or api.load_kb()
        from triage.engine.watch import stop_matcher

        stop_matcher(self._kb, stop_on)  # a typo in stop_on fails here, before training starts
        if notify:
            from triage.notify import resolve_url

            resolve_url(notify)  # and so does a webhook setting that cannot work

    def on_train_begin(self, args, state, control, **kwargs):
        main = state.is_world_process_zero
        multi = getattr(args, "world_size", 1) > 1
        report = self.report
        if report is True:
            report = os.path.join(args.output_dir, "triage-report.html")
        kw = dict(self.monitor_kw)
        if multi:
            kw["budget"] = None
        if not main:
            kw["quiet"] = True
        self.monitor = Monitor(
            stop_on=self.stop_on, notify=self.notify if main else None, report=(report or None) if main else None,
            kb=self._kb, name=self.name or f"{os.path.basename(os.path.normpath(args.output_dir)) or 'run'} (HF Trainer)",
            source="hf_state", config=_args_config(args), **kw,
        )

    def on_log(self, args, state, control, logs=None, **kwargs):
        m = self.monitor
        if m is None or not logs:
            return
        if m.update(state.global_step, logs) and not control.should_training_stop:
            control.should_training_stop = True
            self.stopped_at = state.global_step

    def on_train_end(self, args, state, control, **kwargs):
        if self.monitor is not None and state.is_world_process_zero:
            self.monitor.close()


def _args_config(args) -> dict:
    try:
        data = args.to_dict()  # the Trainer's own export hides its tokens already
    except Exception:  # an arguments subclass that cannot export: go without the config
        return {}
    return data


__all__ = ["TriageCallback"]
