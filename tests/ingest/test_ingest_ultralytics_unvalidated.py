"""Ultralytics' results.csv on a run trained with val=False: every validation column is 0 on the epochs
it did not validate and holds real numbers on the final one. Those zeros are no evaluation (a loss of
exactly 0 beside a mAP of exactly 0 would read as an evaluation of nothing); they are left out with a
warning, and a row that only some of them are 0 in keeps every cell."""

from triage.ingest import read_run

HEADER = ("epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),metrics/recall(B),"
          "metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/pg2\n")


def _write(tmp_path, rows):
    path = tmp_path / "results.csv"
    path.write_text(HEADER + "".join(rows), encoding="utf-8")
    return read_run(path)


def test_epochs_with_every_validation_column_at_zero_are_not_evaluations(tmp_path):
    rows = [f"{e},{100 * e},1.{9 - e},2.{9 - e},1.4,0,0,0,0,0,0,0,0.001,0.001,0.001\n" for e in range(1, 6)]
    rows.append("6,600,1.1,0.6,1.1,0.91,0.88,0.93,0.61,1.2,0.64,1.13,0.0005,0.0005,0.0005\n")
    run = _write(tmp_path, rows)
    assert len(run.series["loss"].values) == 6
    assert list(run.series["eval/loss"].values) == [1.2 + 0.64 + 1.13]
    assert list(run.series["eval/map"].values) == [0.61]
    assert any("5 epoch(s) with every val/ and metrics/ column at 0" in w for w in run.meta.get("warnings", []))


def test_a_zero_score_beside_a_validation_loss_is_an_evaluation(tmp_path):
    rows = [f"{e},{100 * e},1.{9 - e},2.{9 - e},1.4,0,0,0,0,1.5,3.1,1.6,0.001,0.001,0.001\n" for e in range(1, 6)]
    run = _write(tmp_path, rows)
    assert list(run.series["eval/map"].values) == [0.0] * 5
    assert not any("not validated" in w for w in run.meta.get("warnings", []))
