"""The Hugging Face callback on a real `transformers.Trainer`, tiny models on CPU (a second or two
each): a run at a far too high learning rate is stopped at the log that shows the divergence, with
the knob printed; a NaN that the Trainer hides from its logged loss (logging_nan_inf_filter, on by
default) is caught through the gradient norm; a healthy run trains to the end and gets its report."""

from __future__ import annotations

import io
import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")

from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments  # noqa: E402
from transformers.trainer_callback import PrinterCallback  # noqa: E402

from triage.integrations import HFCallback  # noqa: E402

VOCAB, LENGTH = 64, 32


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models train fastest on one thread, and do not fight the other tests for the cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


class Counting(torch.utils.data.Dataset):
    """Sequences that count up modulo the vocabulary: a language a tiny GPT-2 learns quickly."""

    def __init__(self, n: int = 1024, seed: int = 0):
        g = torch.Generator().manual_seed(seed)
        start = torch.randint(0, VOCAB, (n, 1), generator=g)
        self.x = (start + torch.arange(LENGTH)) % VOCAB

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"input_ids": self.x[i], "labels": self.x[i]}


def tiny_gpt2():
    torch.manual_seed(0)
    return GPT2LMHeadModel(GPT2Config(vocab_size=VOCAB, n_positions=LENGTH, n_embd=32, n_layer=2, n_head=2,
                                      bos_token_id=0, eos_token_id=0))


def train(model, data, tmp_path, callback, **kw):
    args = TrainingArguments(output_dir=str(tmp_path / "out"), per_device_train_batch_size=8, report_to=[],
                             save_strategy="no", disable_tqdm=True, use_cpu=True, seed=0, **kw)
    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[callback])
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    return trainer


def test_a_diverging_run_is_stopped_at_the_log_that_shows_it(tmp_path):
    out = io.StringIO()
    cb = HFCallback(stop_on=("nan", "divergence"), out=out, budget=None)
    logging_steps = 2
    trainer = train(tiny_gpt2(), Counting(), tmp_path, cb, max_steps=150, learning_rate=3.0,
                    lr_scheduler_type="linear", warmup_steps=40, logging_steps=logging_steps)
    text = out.getvalue()
    assert cb.stopped_at is not None, text
    assert trainer.state.global_step == cb.stopped_at < 60, "stopped in the step whose log showed it"
    stop = cb.monitor._live.reported[cb.monitor._stopper[0]]
    assert stop.answer == "diverged"
    # the detector calls it a divergence once the loss has stayed up for a few logs, not at the first high one
    assert cb.stopped_at - stop.first_step <= 5 * logging_steps, (cb.stopped_at, stop.first_step, stop.summary)
    assert f"step {cb.stopped_at}: " in text and "knob:" in text
    assert f"stopping training at step {cb.stopped_at} (stop_on=divergence)" in text
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert max(losses) > 5 * losses[0], "the run really diverged"
    assert (tmp_path / "out" / "triage-report.html").is_file()


def test_the_default_cadence_also_stops_a_diverging_run(tmp_path):
    out = io.StringIO()
    cb = HFCallback(stop_on="divergence", out=out, report=False)
    trainer = train(tiny_gpt2(), Counting(), tmp_path, cb, max_steps=150, learning_rate=3.0,
                    lr_scheduler_type="linear", warmup_steps=40, logging_steps=2)
    assert cb.stopped_at is not None and trainer.state.global_step == cb.stopped_at < 100, out.getvalue()
    assert not (tmp_path / "out" / "triage-report.html").exists()


class Regression(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))

    def forward(self, x, labels=None):
        pred = self.net(x).squeeze(-1)
        return {"loss": torch.nn.functional.mse_loss(pred, labels), "logits": pred}


class Stream(torch.utils.data.IterableDataset):
    """Samples in a fixed order; sample number `bad` is corrupt (an inf feature)."""

    def __init__(self, bad: int):
        self.bad = bad

    def __iter__(self):
        g = torch.Generator().manual_seed(0)
        w = torch.randn(8, generator=g)
        for i in range(100_000):
            x = torch.randn(8, generator=g)
            if i == self.bad:
                x[0] = math.inf
            yield {"x": x, "labels": (x * w).sum()}


def test_a_nan_the_trainer_hides_from_its_loss_is_caught_through_the_gradient_norm(tmp_path):
    out = io.StringIO()
    cb = HFCallback(stop_on=("nan",), out=out, report=False)
    logging_steps = 5
    trainer = train(Regression(), Stream(bad=8 * 30 + 3), tmp_path, cb, max_steps=200, learning_rate=1e-2,
                    logging_steps=logging_steps)  # the corrupt sample is in step 31's batch
    logged = [h for h in trainer.state.log_history if "loss" in h]
    assert all(math.isfinite(h["loss"]) for h in logged), "the Trainer's nan filter hid the NaN loss"
    assert cb.stopped_at == trainer.state.global_step == 35, out.getvalue()
    assert "grad_norm" in out.getvalue() and "knob:" in out.getvalue()


def test_a_healthy_run_trains_to_the_end_and_gets_its_report(tmp_path):
    out = io.StringIO()
    cb = HFCallback(stop_on=("nan", "divergence"), out=out, report=str(tmp_path / "report.md"))
    trainer = train(tiny_gpt2(), Counting(), tmp_path, cb, max_steps=60, learning_rate=3e-3, logging_steps=5,
                    warmup_steps=5)
    assert cb.stopped_at is None and trainer.state.global_step == 60
    assert "stopping training" not in out.getvalue()
    assert (tmp_path / "report.md").read_text().strip()
    assert cb.monitor.config.get("max_grad_norm") == 1.0, "the TrainingArguments are the run's config"
    assert not any("token" in k.lower() for k in cb.monitor.config)
