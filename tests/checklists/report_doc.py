"""A hand-written `scan --json` document (the contract: tests/test_scan_json_contract.py) and series for the report tests."""

from __future__ import annotations

import math

DOC = {
    "version": "0.1.0",
    "sources": [{"path": "runs/llama-sft/trainer_state.json", "format": "hf-trainer-state", "rows": 400,
                 "skipped": 2, "metrics": ["loss", "grad_norm", "learning_rate"]}],
    "findings": [
        {"detector": "det-loss-nan", "symptom": "Q-nan-when", "answer": "mid-run", "metric": "loss",
         "first_step": 310, "last_step": 400, "summary": "loss is NaN from step 310 (91 of 400 rows); last finite value 2.41 at step 309"},
        {"detector": "det-gradnorm-spike", "symptom": "Q-gradnorm-before-nan", "answer": "yes", "metric": "grad_norm",
         "first_step": 290, "last_step": 309, "summary": "grad_norm rises from a median 0.9 to 3.1e4 over the 20 steps before the first NaN"},
    ],
    "causes": [
        {"id": "S-grad-explosion", "title": "Gradient explosion - grad_norm shoots to inf, then the loss goes NaN",
         "score": 0.62, "aliases": ["S-nan"], "evidence": ["grad_norm grows 3e4x in 20 steps", "the loss turns NaN right after"],
         "fix": [{"knob": "max_grad_norm: 1.0", "range": "0.5-1.0", "expect": "grad_norm stays below about 10 and no NaN appears"}]},
        {"id": "S-lr-too-high", "title": "Learning rate too high - repeated spikes or divergence", "score": 0.31, "aliases": [],
         "evidence": ["the blow-up starts when the LR reaches its peak"],
         "fix": [{"knob": "learning_rate: 1e-5", "range": "lower the peak 2-5x", "expect": "loss falls without spikes past warmup"},
                 {"knob": "max_grad_norm: 1.0", "range": "0.5-1.0", "expect": "duplicate knob: merged"}]},
    ],
    "unanswered": [{"id": "Q-precision", "question": "Which numeric precision does the run use?"}],
    "healthy": False,
}

HEALTHY = {"version": "0.1.0", "sources": DOC["sources"], "findings": [], "causes": [], "unanswered": [], "healthy": True}


def series() -> dict:
    loss, grad, lr = [], [], []
    for step in range(1, 401):
        value = 10.5 * math.exp(-step / 60) + 2.3 + 0.05 * math.sin(step)
        loss.append((step, float("nan") if step >= 310 else value))
        g = 0.9 + 0.1 * math.cos(step / 7)
        if 290 <= step < 310:
            g *= 10 ** ((step - 289) / 4.4)
        grad.append((step, float("inf") if step >= 310 else g))
        lr.append((step, 2e-5 * min(1.0, step / 300)))
    return {"loss": loss, "grad_norm": grad, "learning_rate": lr}
