"""Reader rules for batch-job outputs and notebook tracebacks (round 71): each test writes a short log in
one style and checks what the reader takes from it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_wandb_summary_kept_when_the_rest_are_settings(tmp_path):
    """A job's output whose only numbers besides W&B's end-of-run block are a parameter table printed once
    (`| lr | float | 0.001 |`): the settings are dropped, and the run summary is then the one row the
    run left."""
    lines = [
        "# Parameters",
        "| PARAMETER | TYPE | VALUE |",
        "|-----------|------|-------|",
        "| batch_size | int | 16 |",
        "| lr | float | 0.001 |",
        "Traceback (most recent call last):",
        '  File "main.py", line 66, in run',
        "    train_loss = model.trainer(batch)",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 816.00 MiB.",
        "wandb: Run history:",
        "wandb: train_loss \u2581",
        "wandb: ",
        "wandb: Run summary:",
        "wandb: train_loss 9.40521",
        "wandb: ",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [9.40521]


def test_ipython_traceback_source_lines_are_no_metrics(tmp_path):
    """IPython 8's traceback in a notebook's output: frames open at `File /path/mod.py:2245, in fn(...)` or
    `Cell In[19], line 1`, each source line follows its line number, the failing one after an arrow
    (`-> 2245 ...`, `----> 1 ...`). The numbered code is the traceback's, never a step with values."""
    lines = [
        "---------------------------------------------------------------------------",
        "KeyboardInterrupt                         Traceback (most recent call last)",
        "Cell In[7], line 1",
        "----> 1 trainer.train()",
        "      2 trainer.save_model(out_dir)",
        "",
        "File /env/lib/python3.12/site-packages/pkg/trainer.py:1812, in Trainer.train(self, **kwargs)",
        "   1810 else:",
        "-> 1812     return self.loop(",
        "   1813         args=args,",
        "   1814     )",
        "",
        "File /env/lib/python3.12/site-packages/pkg/norm.py:61, in Norm.forward(self, x)",
        "     60 variance = x.pow(2).mean(-1, keepdim=True)",
        "---> 61 x = x * torch.rsqrt(variance + self.eps)",
        "     62 loss = loss + loss / (1 + self.step - self.last)",
        "",
        "KeyboardInterrupt: ",
    ]
    run = _read(tmp_path, lines)
    assert not run.series
    assert [ev.kind for ev in run.events if ev.kind == "traceback"] == ["traceback"]


def test_gan_stacked_adversarial_model_loss(tmp_path):
    """A Keras GAN loop that trains the generator through a stacked adversarial model prints
    `N: [D loss: x, acc: y]  [A loss: x, acc: y]`: the `A loss` is the generator's loss."""
    lines = []
    for i, (d, a) in enumerate([(0.45, 4.43), (0.33, 3.05), (0.30, 2.74)]):
        lines += [f"Epoch #{i * 20 + 19}", f"{i * 20 + 19}: [D loss: {d:.6f}, acc: 0.000000]  [A loss: {a:.6f}, acc: 0.0900]", ""]
    run = _read(tmp_path, lines)
    assert _vals(run, "g_loss") == [4.43, 3.05, 2.74]
    assert _vals(run, "d_loss") == [0.45, 0.33, 0.30]


def test_table_header_with_numbered_column_names(tmp_path):
    """A Trainer results table copied as tab-separated text whose column titles hold whole numbers
    (`Map 50`, `Mar 100`, from `map_50`, `mar_100`): the line is the header, not a row of values."""
    lines = [
        "Epoch\tTraining Loss\tValidation Loss\tMap\tMap 50\tMar 100",
        "1\tNo log\t208.918320\t0.002300\t0.004900\t0.183700",
        "2\tNo log\t70.961647\t0.027000\t0.055700\t0.256100",
        "3\t114.205100\t21.552996\t0.173500\t0.315900\t0.485600",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [208.91832, 70.961647, 21.552996]
    assert _vals(run, "eval/map") == [0.0023, 0.027, 0.1735]
    assert _vals(run, "loss") == [114.2051]


def test_counter_and_number_cells_are_no_header(tmp_path):
    """Tab-separated records whose cells read `Epoch 1`, `Step 200`: a counter's word and its value are a
    record, never the names of a table's columns."""
    lines = [f"Epoch {e}\tStep {e * 100}\tloss {1.0 / e:.4f}" for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.0, 0.5, 0.3333, 0.25]


def test_loop_counter_places_one_epoch_keras_fits(tmp_path):
    """A loop that prints its own `epoch N` and then calls Keras `fit(epochs=1)`, whose header is always
    `Epoch 1/1`, with generated samples between the calls: the loop's counter is the epoch."""
    lines = []
    for i, loss in enumerate([1.9895, 1.6201, 1.5107], start=1):
        lines += [f"epoch {i}", "Epoch 1/1",
                  f"200278/200278 [==============================] - 126s - loss: {loss:.4f}   ",
                  '--- Generating with seed: "the sense of"', "------ temperature: 0.2", "the sense of the say the same"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.9895, 1.6201, 1.5107]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]


def test_epoch_printed_after_its_restarting_steps(tmp_path):
    """`Step: 0, Loss: x` ... `Step: 600, Loss: x`, then `Epoch: 0 -- Average training Loss: x`: the loop names
    the epoch only after it, and its step counter starts again every epoch; each epoch's steps follow the
    last epoch's instead of replacing them."""
    lines = []
    for e in range(3):
        lines += [f"Step: {s}, Loss: {0.7 - 0.1 * e - s / 10000:.4f}" for s in (0, 200, 400, 600)]
        lines += [f"Epoch: {e} -- Average training Loss: {0.6 - 0.1 * e:.4f}", f"Average Test loss: {0.9 - 0.1 * e:.4f}",
                  "saving model"]
    run = _read(tmp_path, lines)
    assert len(_vals(run, "loss")) == 12
    assert _vals(run, "loss")[:5] == [0.7, 0.68, 0.66, 0.64, 0.6]
    assert _vals(run, "eval/loss") == [0.9, 0.8, 0.7]


def test_clock_column_of_a_metric_table_is_no_metric(tmp_path):
    """DVCLive 0.x scalar file, `timestamp<TAB>step<TAB>val_auc` with the time in Unix milliseconds: the
    clock column says when each row was written and is no series of the run."""
    lines = ["timestamp\tstep\tval_auc"] + [f"{1662224656811 + 108000 * i}\t{i}\t0.5" for i in range(6)]
    run = _read(tmp_path, lines, name="val_auc.tsv")
    assert _vals(run, "eval/auc") == [0.5] * 6
    assert "timestamp" not in run.series
