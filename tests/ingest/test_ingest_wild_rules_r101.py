"""Round r101 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text

from triage.ingest.aliases import table


def test_split_word_between_the_model_part_and_its_metric():
    # `Gen Train Loss`, `Disc Val Loss`: the generator's / discriminator's loss on that split
    t = table()
    assert t.resolve("Gen Train Loss").name == "g_loss"
    assert t.resolve("Disc_Train_Loss").name == "d_loss"
    assert t.resolve("Disc Val Loss").name == "eval/d_loss"
    assert t.resolve("gen_test_loss").name == "eval/test/g_loss"
    assert t.resolve("best_val_loss").name == "best_val_loss"  # no model part: unchanged


def test_gan_losses_named_after_the_model(tmp_path):
    text = "training the GAN\n"
    for i in range(6):
        text += f"[{i * 10:4d}] GAN-d-loss: {0.7 - 0.01 * i:.4f}  GAN-g-loss: {0.8 + 0.02 * i:.4f}\n"
    run = read_text(tmp_path, text)
    assert len(run.series["d_loss"].values) == 6
    assert run.series["g_loss"].values[-1] == 0.9


def test_gan_train_and_val_lines_by_epoch(tmp_path):
    text = ""
    for e in range(4):
        text += f"Epoch {e}: Gen Train Loss: {2.0 + e:.3f}, Disc Train Loss: {0.5 - 0.1 * e:.3f} |\n"
        text += f" Gen Val Loss: {2.5 + e:.3f}, Disc Val Loss: {0.6 - 0.1 * e:.3f}\n"
    run = read_text(tmp_path, text)
    assert list(run.series["g_loss"].values) == [2.0, 3.0, 4.0, 5.0]
    assert list(run.series["eval/d_loss"].values) == [0.6, 0.5, 0.4, 0.3]


def test_keras_evaluate_result_printed_again_is_no_training_reading(tmp_path):
    # fit() for four epochs without validation, evaluate() on the test set, then the notebook prints the
    # score list at full precision and the accuracy as a percentage
    text = ""
    for e in range(1, 5):
        text += f"Epoch {e}/4\n40/40 [==============================] - 2s 50ms/step - loss: {0.5 / e:.4f}" \
                f" - accuracy: {0.8 + 0.04 * e:.4f}\n"
    text += "250/250 [==============================] - 1s 4ms/step - loss: 0.1012 - accuracy: 0.9655\n"
    text += "loss= 0.10117302834987640\naccuracy= 96.55 %\n"
    run = read_text(tmp_path, text)
    assert run.series["loss"].values[-1] == 0.125
    assert run.series["accuracy"].values[-1] == 0.96
    assert list(run.series["eval/loss"].values) == [0.1012]


def test_mmengine_scalars_validation_records_are_the_evaluation(tmp_path):
    # MMEngine's vis_data/scalars.json: a training record per logging interval (lr, loss, data_time, time,
    # epoch, memory, step) and after each validation a record of the scores with that loop's timings only
    import json
    lines = []
    for e in range(1, 4):
        lines.append({"lr": 0.01, "data_time": 0.5, "loss": 1.0 - 0.1 * e, "time": 1.2, "epoch": e,
                      "memory": 4000, "step": 50 * e})
        lines.append({"accuracy/top1": 60.0 + 5 * e, "accuracy/top5": 90.0 + e, "data_time": 0.3, "time": 0.4,
                      "step": e})
    run = read_text(tmp_path, "".join(json.dumps(x) + "\n" for x in lines), name="scalars.json")
    assert list(run.series["eval/accuracy"].values) == [65.0, 70.0, 75.0]
    assert "accuracy" not in run.series
    assert len(run.series["loss"].values) == 3


def test_mmengine_scalars_segmentation_scores_are_the_evaluation(tmp_path):
    import json
    lines = [{"base_lr": 0.001, "lr": 0.001, "data_time": 0.01, "loss": 2.0 / i, "decode.loss_ce": 1.5 / i,
              "decode.acc_seg": 50.0 + i, "time": 0.3, "iter": 50 * i, "memory": 6000, "step": 50 * i}
             for i in range(1, 5)]
    lines.append({"aAcc": 96.5, "mIoU": 71.9, "mAcc": 77.2, "data_time": 0.01, "time": 0.7, "step": 200})
    run = read_text(tmp_path, "".join(json.dumps(x) + "\n" for x in lines), name="scalars.json")
    assert list(run.series["eval/miou"].values) == [71.9]
    assert "miou" not in run.series


def test_smp_dataset_iou_is_the_segmentation_iou(tmp_path):
    # segmentation_models_pytorch's Lightning example logs `<split>_dataset_iou` and `<split>_per_image_iou`
    text = "epoch,step,train_dataset_iou,train_loss,valid_dataset_iou,valid_loss,valid_per_image_iou\n"
    for e in range(3):
        text += f"{e},{10 * e + 9},{0.5 + 0.1 * e},{0.6 - 0.1 * e},{0.55 + 0.1 * e},{0.5 - 0.1 * e},{0.54 + 0.1 * e}\n"
    run = read_text(tmp_path, text, name="metrics.csv")
    assert len(run.series["miou"].values) == 3
    assert len(run.series["eval/miou"].values) == 3
    assert "eval/per_image_iou" in run.series


def _keras_csv(rows):
    text = "epoch,accuracy,loss,val_accuracy,val_loss\n"
    for e, loss in rows:
        text += f"{e},{0.5 + 0.01 * e},{loss},{0.45 + 0.01 * e},{loss + 0.05}\n"
    return text


def test_keras_csvlogger_stub_run_then_a_relaunch(tmp_path):
    # CSVLogger appends: a launch stopped after its first epoch, then a full launch from epoch 0 again
    rows = [(0, 0.91)] + [(e, 0.8 - 0.05 * e) for e in range(5)]
    run = read_text(tmp_path, _keras_csv(rows), name="training.log.csv")
    assert run.series["loss"].values[0] == 0.91
    assert len(run.series["loss"].values) == 6
    assert len(run.meta.get("run_starts") or []) == 1


def test_keras_csvlogger_repeated_later_epoch_is_no_relaunch(tmp_path):
    # an epoch written twice in the middle (a resume that logs it again) opens no run
    rows = [(0, 0.9), (1, 0.8), (2, 0.7), (2, 0.69), (3, 0.6)]
    run = read_text(tmp_path, _keras_csv(rows), name="training.log.csv")
    assert not run.meta.get("run_starts")
