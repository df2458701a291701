"""Setups for the probe-evidence tests (`--setup probe_setups_e17.py:FUNC`): small real models."""

import torch
import torch.nn as nn


def _data(n=32, d=8, classes=4):
    g = torch.Generator().manual_seed(0)
    return torch.randn(n, d, generator=g), torch.randint(0, classes, (n,), generator=g)


def nll_on_raw_logits():
    """The classic bug: the model ends in a Linear layer and its raw logits go into NLLLoss."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    crit = nn.NLLLoss()
    return {"model": model, "optimizer": torch.optim.SGD(model.parameters(), lr=0.1),
            "loss_fn": lambda out, t: crit(out, t), "batch": _data(), "num_classes": 4}


def healthy_classifier():
    """A correct classifier: raw logits into CrossEntropyLoss, Adam at a sensible learning rate."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
    crit = nn.CrossEntropyLoss()
    return {"model": model, "optimizer": torch.optim.Adam(model.parameters(), lr=1e-2),
            "loss_fn": lambda out, t: crit(out, t), "batch": _data(16), "num_classes": 4}
