"""triage inside the training loop: the checks of `triage scan`, fed as the run goes.

    from triage.integrations import Monitor            # any loop: monitor.log(step, loss=..., grad_norm=...)
    from triage.integrations import HFCallback         # transformers.Trainer(callbacks=[HFCallback()])
    from triage.integrations import LightningCallback  # lightning.pytorch.Trainer(callbacks=[LightningCallback()])

Each prints every new finding once with its most likely cause and knob, can stop training on
chosen findings (`stop_on=("nan", "divergence")`), posts findings to a webhook (`notify=URL`) and
writes a report at the end. The framework callbacks import their framework only when asked for,
so `import triage` (and the command line) never loads torch, transformers or Lightning.
"""

from __future__ import annotations

__all__ = ["Monitor", "HFCallback", "LightningCallback"]


def __getattr__(name: str):
    if name == "Monitor":
        from triage.integrations.monitor import Monitor

        return Monitor
    if name == "HFCallback":
        from triage.integrations.hf import TriageCallback

        return TriageCallback
    if name == "LightningCallback":
        from triage.integrations.lightning import TriageCallback

        return TriageCallback
    raise AttributeError(f"module 'triage.integrations' has no attribute {name!r}")
