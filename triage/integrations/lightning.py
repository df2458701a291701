"""A Lightning `Callback` that runs triage's checks as the Trainer trains.

    import lightning.pytorch as pl
    from triage.integrations import LightningCallback

    trainer = pl.Trainer(..., callbacks=[LightningCallback(stop_on=("nan", "divergence"))])

Every `log_every_n_steps` optimizer steps (the Trainer's own logging interval) it records the
training loss the step returned, the gradient norm before clipping (computed then, in
`on_before_optimizer_step`: after AMP unscaling, before Lightning clips), the learning rate, and
the metrics `self.log` produced that changed since the last record; after each validation, the
validation metrics. Names are read as in a Lightning `metrics.csv`, so the Trainer's defaults
(no gradient clipping unless `gradient_clip_val` is set) are understood as when that file is
scanned. A `stop_on` finding sets `trainer.should_stop` (Lightning ends the fit after the current
step); with several processes the decision is shared first (any rank stopping stops all, the way
EarlyStopping does it). At the end it writes a report into the Trainer's log folder (or
`report=PATH`). Built on `lightning.pytorch`; with only the older `pytorch_lightning` package
installed it is built on that.
"""

from __future__ import annotations

import os

try:
    from lightning.pytorch import Callback
except ImportError:  # pragma: no cover - the older package name
    from pytorch_lightning import Callback

from triage.integrations.monitor import Monitor


class TriageCallback(Callback):
    """See the module docstring. Arguments are those of `Monitor`, plus `report`: a path, True
    (`<log_dir>/triage-report.html`, the default) or False (no report), and `every`: record every
    N optimizer steps (default: the Trainer's log_every_n_steps)."""

    def __init__(self, stop_on=(), notify: str | None = None, report=True, name: str | None = None,
                 every: int | None = None, **monitor_kw):
        from triage import api
        from triage.engine.watch import stop_matcher

        self.stop_on = stop_on
        self.notify = notify
        self.report = report
        self.name = name
        self.every = every
        self.monitor_kw = monitor_kw
        self._kb = monitor_kw.pop("kb", None) or api.load_kb()
        stop_matcher(self._kb, stop_on)  # a typo in stop_on fails here, before training starts
        if notify:
            from triage.notify import resolve_url

            resolve_url(notify)  # and so does a webhook setting that cannot work
        self.monitor: Monitor | None = None
        self.stopped_at: int | None = None
        self._grad_norm = None
        self._last_step = -1
        self._seen: dict[str, float] = {}

    # -- set-up ----------------------------------------------------------------------------------
    def on_fit_start(self, trainer, pl_module):
        main = trainer.is_global_zero
        report = self.report
        if report is True:
            folder = trainer.log_dir or trainer.default_root_dir
            report = os.path.join(folder, "triage-report.html") if folder else None
        kw = dict(self.monitor_kw)
        if trainer.world_size > 1:
            kw["budget"] = None  # every rank checks at the same steps
        if not main:
            kw["quiet"] = True
        self.monitor = Monitor(
            stop_on=self.stop_on, notify=self.notify if main else None, report=(report or None) if main else None,
            kb=self._kb, name=self.name or f"{type(pl_module).__name__} (Lightning)", source="lightning_csv",
            config=_config(trainer, pl_module), **kw,
        )

    def _interval(self, trainer) -> int:
        return max(1, int(self.every or trainer.log_every_n_steps or 1))

    # -- recording -------------------------------------------------------------------------------
    def on_before_optimizer_step(self, trainer, pl_module, optimizer):
        if (trainer.global_step + 1) % self._interval(trainer):
            return
        import torch

        grads = [p.grad.detach() for p in pl_module.parameters() if p.grad is not None]
        if grads:
            norms = torch._foreach_norm(grads) if hasattr(torch, "_foreach_norm") else [g.norm() for g in grads]
            self._grad_norm = torch.linalg.vector_norm(torch.stack([n.float() for n in norms]))

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        m = self.monitor
        step = trainer.global_step
        if m is None or step == self._last_step or step % self._interval(trainer):
            return  # not an optimizer step, or not a logging one
        self._last_step = step
        values = self._changed(trainer)
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        if loss is not None:
            values["loss"] = loss.detach() if hasattr(loss, "detach") else loss
        if self._grad_norm is not None:
            values["grad_norm"], self._grad_norm = self._grad_norm, None
        if trainer.optimizers:
            values["lr"] = trainer.optimizers[0].param_groups[0].get("lr")
        self._decide(trainer, m.update(step, values))

    def on_validation_end(self, trainer, pl_module):
        m = self.monitor
        if m is None or trainer.sanity_checking:
            return
        values = self._changed(trainer)
        if values:
            self._decide(trainer, m.update(trainer.global_step, values))

    def _changed(self, trainer) -> dict:
        """The logged metrics whose value changed since they were last recorded."""
        out = {}
        for key, value in trainer.callback_metrics.items():
            try:
                v = float(value)
            except (TypeError, ValueError, RuntimeError):
                continue
            old = self._seen.get(key)
            if old is None or (v != old and not (v != v and old != old)):
                self._seen[key] = v
                out[key] = v
        return out

    def _decide(self, trainer, stop: bool) -> None:
        if trainer.world_size > 1:
            stop = bool(trainer.strategy.reduce_boolean_decision(stop, all=False))
        if stop and not trainer.should_stop:
            trainer.should_stop = True
            self.stopped_at = trainer.global_step

    # -- the end ---------------------------------------------------------------------------------
    def on_fit_end(self, trainer, pl_module):
        if self.monitor is not None and trainer.is_global_zero:
            self.monitor.close()

    def on_exception(self, trainer, pl_module, exception):
        """A crashed fit still gets its findings and report (what was logged up to the crash)."""
        self.on_fit_end(trainer, pl_module)


def _config(trainer, pl_module) -> dict:
    """The settings triage's questions look for: the Trainer's, the optimizer's and the hparams."""
    cfg = {
        "accumulate_grad_batches": getattr(trainer, "accumulate_grad_batches", None),
        "gradient_clip_val": getattr(trainer, "gradient_clip_val", None),
        "gradient_clip_algorithm": getattr(trainer, "gradient_clip_algorithm", None),
        "precision": str(getattr(trainer, "precision", "") or ""),
        "max_steps": getattr(trainer, "max_steps", None),
        "max_epochs": getattr(trainer, "max_epochs", None),
    }
    if trainer.optimizers:
        group = trainer.optimizers[0].param_groups[0]
        cfg["optimizer"] = type(trainer.optimizers[0]).__name__
        for key in ("lr", "weight_decay", "momentum", "eps"):
            if isinstance(group.get(key), (int, float)):
                cfg[key] = group[key]
    try:
        from triage.ingest.sidecar import _flatten

        flat: dict = {}
        _flatten(dict(pl_module.hparams), flat)
        cfg.update({k: v for k, v in flat.items() if k not in cfg})
    except Exception:  # hparams that cannot be read as a mapping: go without them
        pass
    return {k: (v.value if hasattr(v, "value") and not isinstance(v, (int, float, str)) else v) for k, v in cfg.items()}


__all__ = ["TriageCallback"]
