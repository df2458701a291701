"""Probes: standalone scripts run against the user's own training code on the GPU box.

Each probe is one file, ``scripts/probe_<name>.py``, that imports only the standard library and
torch (plus optional libraries it checks for), so it can be copied to a machine without triage
(``triage probe export``). Its metadata (what it checks, what it needs, which questions it
answers) lives in ``knowledge/probes/<name>.yaml``. ``triage probe run`` executes the same file in
a subprocess with the current interpreter, so the result is identical to a run on the GPU box.

The setup contract: ``make_setup()`` returns a dict with ``model``,
``optimizer``, ``loss_fn(outputs, targets)``, ``batch=(inputs, targets)`` and optionally
``scheduler``, ``scaler``, ``num_classes``, ``device``, ``tokenizer``, ``dataloader``. Probes also
read these optional keys when present: ``train_step(batch)`` (one iteration of the user's own
loop: zero_grad, forward, backward, step, scheduler step), ``steps_per_epoch``, ``epochs``,
``total_steps``, ``scheduler_interval`` ('step' | 'epoch'), ``eval_batch``, ``phase`` ('train' |
'sft' | 'generate' | 'dpo') and ``causal_lm``.
"""

from triage.probes.runner import (
    RESULT_STATUSES,
    ProbeError,
    ProbeInfo,
    ProbeResultError,
    RunOutcome,
    export,
    get,
    list_probes,
    load_result,
    names,
    run,
    script_path,
)

__all__ = [
    "RESULT_STATUSES", "ProbeError", "ProbeInfo", "ProbeResultError", "RunOutcome", "export", "get",
    "list_probes", "load_result", "names", "run", "script_path",
]
