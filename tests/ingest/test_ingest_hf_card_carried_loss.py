"""The results table of a Hugging Face model card: the Trainer fills the Training Loss column with the
last training loss it logged (`No log` before the first log), so with logging_steps longer than an epoch
one logged value is printed again at every evaluation until the next log. Those repeats are one point,
not a loss pinned for epochs; the evaluation columns keep every row."""

from triage.ingest import read_run

CARD = """## Training results

| Training Loss | Epoch | Step | Validation Loss | Rouge1  |
|:-------------:|:-----:|:----:|:---------------:|:-------:|
| No log        | 1.0   | 91   | 0.4308          | 87.5009 |
| No log        | 2.0   | 182  | 0.2945          | 91.7111 |
| 0.4603        | 3.0   | 273  | 0.2515          | 93.0416 |
| 0.4603        | 4.0   | 364  | 0.2259          | 94.2097 |
| 0.4603        | 5.0   | 455  | 0.2148          | 94.7732 |
| 0.1210        | 6.0   | 546  | 0.2030          | 95.0207 |
| 0.1210        | 7.0   | 637  | 0.1964          | 95.1482 |
"""


def test_a_training_loss_carried_over_from_the_last_log_is_one_point(tmp_path):
    path = tmp_path / "README.md"
    path.write_text(CARD, encoding="utf-8")
    run = read_run(path)
    assert list(run.series["loss"].values) == [0.4603, 0.121]
    assert list(run.series["loss"].steps) == [273.0, 546.0]
    assert len(run.series["eval/loss"].values) == 7


def test_other_tables_keep_a_repeated_loss(tmp_path):
    path = tmp_path / "log.md"
    path.write_text("| Epoch | Step | Loss |\n|---|---|---|\n| 1 | 10 | 0.6931 |\n| 2 | 20 | 0.6931 |\n| 3 | 30 | 0.6931 |\n",
                    encoding="utf-8")
    assert list(read_run(path).series["loss"].values) == [0.6931] * 3
