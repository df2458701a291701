"""Round r91: progress bars that are no training counter, beside HF Trainer dict lines."""
from written_log import read_text as _read


def test_download_bar_counting_bytes_is_no_step(tmp_path):
    # a hub download bar counts bytes (its rate is MB/s): the dicts after it are not all at its size
    run = _read(tmp_path, "\n".join([
        "model.safetensors: 100% 512/512 [00:00<00:00, 3.20MB/s]",
        "{'loss': 0.91, 'learning_rate': 0.001, 'epoch': 0.1}",
        "{'loss': 0.85, 'learning_rate': 0.002, 'epoch': 0.2}",
        "{'loss': 0.80, 'learning_rate': 0.003, 'epoch': 0.3}",
    ]) + "\n")
    loss = run.series["loss"]
    assert list(loss.values) == [0.91, 0.85, 0.80]


def test_finished_eval_bar_glued_to_metric_dict_is_no_training_counter(tmp_path):
    # `100% 20/20 [...]{'mrr': ...}`: a metric function printing after its finished evaluation loop
    run = _read(tmp_path, "\n".join([
        "100% 20/20 [00:03<00:00,  5.10it/s]{'rank': 812.5, 'mrr': 0.0071}",
        "100% 20/20 [00:03<00:00,  5.02it/s]",
        "{'loss': 0.7012, 'grad_norm': 0.051, 'learning_rate': 0.001, 'epoch': 0.05}",
        "{'loss': 0.6987, 'grad_norm': 0.047, 'learning_rate': 0.002, 'epoch': 0.10}",
        "{'loss': 0.6954, 'grad_norm': 0.062, 'learning_rate': 0.003, 'epoch': 0.15}",
        "{'loss': 0.6931, 'grad_norm': 0.044, 'learning_rate': 0.004, 'epoch': 0.20}",
    ]) + "\n")
    loss = run.series["loss"]
    assert list(loss.values) == [0.7012, 0.6987, 0.6954, 0.6931]


def test_running_training_bar_still_gives_the_step(tmp_path):
    # the usual case: a bar that has not reached its end is the trainer's counter
    run = _read(tmp_path, "\n".join([
        " 10% 10/100 [00:05<00:45,  2.00it/s]{'loss': 1.25, 'learning_rate': 0.001, 'epoch': 0.1}",
        " 20% 20/100 [00:10<00:40,  2.00it/s]{'loss': 1.10, 'learning_rate': 0.001, 'epoch': 0.2}",
        " 30% 30/100 [00:15<00:35,  2.00it/s]{'loss': 0.98, 'learning_rate': 0.001, 'epoch': 0.3}",
    ]) + "\n")
    loss = run.series["loss"]
    assert list(loss.values) == [1.25, 1.10, 0.98]
    assert list(loss.steps) == [10.0, 20.0, 30.0]
