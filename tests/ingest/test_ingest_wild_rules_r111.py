"""Reading rules of round r111 (synthetic lines in the styles the wild corpus showed)."""
from triage.ingest import read_run


def _read(tmp_path, text: str):
    p = tmp_path / "log.txt"
    p.write_text(text)
    return read_run(str(p))


def test_score_after_a_held_out_loss_named_in_another_language_is_held_out(tmp_path):
    # Spanish-language scripts put the split word after `loss`; the accuracy printed after the validation
    # loss (`exactitud`, no split word of its own) is measured on the validation set
    run = _read(tmp_path, "Epoch 1: loss entrenamiento=0.70, loss validación=0.72, exactitud=51.0%\n"
                          "Epoch 2: loss entrenamiento=0.66, loss validación=0.69, exactitud=55.5%\n"
                          "Epoch 3: loss entrenamiento=0.61, loss validación=0.68, exactitud=58.0%\n")
    assert run.meta["rows"] == 3
    assert list(run.series["loss"].values) == [0.70, 0.66, 0.61]
    assert list(run.series["eval/loss"].values) == [0.72, 0.69, 0.68]
    assert list(run.series["eval/accuracy"].values) == [51.0, 55.5, 58.0]
    assert "accuracy" not in run.series


def test_spanish_accuracy_alone_is_accuracy(tmp_path):
    run = _read(tmp_path, "epoch 1 exactitud 0.50\nepoch 2 exactitud 0.61\n")
    assert list(run.series["accuracy"].values) == [0.50, 0.61]


_YOLO_HEAD = "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size\n"


def test_ultralytics_own_bar_first_redraw_without_rate_is_a_row(tmp_path):
    # Ultralytics 8.3 draws its own bar (`━─`); its first redraws give the elapsed time two blanks after the
    # count and no rate yet: the bar's tail is not a column of the table
    run = _read(tmp_path, _YOLO_HEAD
                + "        1/5      3.10G      2.500      6.000     1.2000         12        640: 0% ──────────── 0/400  0.9s\r"
                + "        1/5      3.10G      2.400      5.500     1.1500         10        640: 1% ──────────── 4/400 2.1it/s 2.0s<3:10\r"
                + "        1/5      3.10G      2.300      5.100     1.1000         14        640: 2% ━─────────── 8/400 2.2it/s 3.9s<2:58\n")
    assert list(run.series["box_loss"].values) == [2.5, 2.4, 2.3]
    assert list(run.series["cls_loss"].values) == [6.0, 5.5, 5.1]

