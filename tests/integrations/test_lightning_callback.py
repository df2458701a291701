"""The Lightning callback on a real `lightning.pytorch.Trainer` on CPU: a classifier at a far too
high learning rate is stopped through `trainer.should_stop` at the logging step that shows the
divergence, with the knob printed; a healthy run trains to the end, its validation metrics are
read, and its report is written."""

from __future__ import annotations

import io
import logging
import warnings

import pytest

torch = pytest.importorskip("torch")
pl = pytest.importorskip("lightning.pytorch")

from triage.integrations import LightningCallback  # noqa: E402


@pytest.fixture(autouse=True)
def quiet_lightning():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    level = logging.getLogger("lightning.pytorch").level
    logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
    logging.getLogger("lightning.pytorch").setLevel(level)
    torch.set_num_threads(before)


class Classifier(pl.LightningModule):
    def __init__(self, lr: float, num_classes: int = 4):
        super().__init__()
        self.save_hyperparameters()
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, num_classes))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        self.log("val_loss", torch.nn.functional.cross_entropy(logits, y))
        self.log("val_acc", (logits.argmax(1) == y).float().mean())

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)


def loaders():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4096, 16, generator=g)
    y = (x @ torch.randn(16, 4, generator=g)).argmax(1)
    train = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True, generator=g)
    val = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:512], y[:512]), batch_size=128)
    return train, val


def fit(tmp_path, lr, callback, max_steps=300, log_every=5):
    trainer = pl.Trainer(max_steps=max_steps, log_every_n_steps=log_every, callbacks=[callback], accelerator="cpu",
                         enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
                         logger=False, val_check_interval=50, default_root_dir=str(tmp_path))
    train, val = loaders()
    trainer.fit(Classifier(lr), train, val)
    return trainer


def test_a_diverging_run_is_stopped_at_the_logging_step_that_shows_it(tmp_path):
    out = io.StringIO()
    cb = LightningCallback(stop_on=("nan", "divergence"), out=out)
    trainer = fit(tmp_path, lr=30.0, callback=cb)
    text = out.getvalue()
    assert cb.stopped_at is not None, text
    assert trainer.global_step == cb.stopped_at <= 20, "stopped within the first logging interval after the finding"
    assert f"stopping training at step {cb.stopped_at} (stop_on=divergence)" in text
    assert "knob:   Trainer(gradient_clip_val" in text, "Lightning does not clip by default: its own knob"
    assert (tmp_path / "triage-report.html").is_file()


def test_a_healthy_run_trains_to_the_end_with_its_validation_metrics_read(tmp_path):
    out = io.StringIO()
    cb = LightningCallback(stop_on=("nan", "divergence"), out=out, report=str(tmp_path / "r.md"))
    trainer = fit(tmp_path, lr=0.1, callback=cb)
    assert cb.stopped_at is None and trainer.global_step == 300, out.getvalue()
    run = cb.monitor.run
    assert {"loss", "grad_norm", "learning_rate", "eval/loss"} <= set(run.series), sorted(run.series)
    val_steps = run.get("eval/loss").steps
    assert len(val_steps) == 4, "one point per validation (batches 50 and 100 of each 128-batch epoch)"
    assert len(set(val_steps)) == len(val_steps), "none repeated at training steps"
    assert len(run.get("loss")) == 60
    assert (tmp_path / "r.md").read_text().strip()
    assert cb.monitor.config["gradient_clip_val"] is None and cb.monitor.config["lr"] == 0.1
