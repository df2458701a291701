"""Reader rules for print styles seen in real training logs (round 34): each test writes a small log in
the style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

import pytest

from triage.ingest.aliases import table
from written_log import read_written as _read, series_values as _vals


@pytest.mark.parametrize("key, name", [
    ("Thoughput", "throughput"),               # a BERT fine-tuning script's own spelling
    ("Img/sec", "throughput"),                 # a benchmark table's column
    ("Negative loglikelihood", "loss"),        # a CRF tagger's objective
    ("train_loss/word", "loss"),               # a per-word training loss
    ("iter time (s)", "step_time"),            # a pipeline engine's step line
    ("train_px_accuracy", "accuracy"),         # segmentation's pixel accuracy
    ("valid ce-mean-words", "eval/loss"),      # an NMT toolkit's validation cross-entropy
    ("dev BLEU4", "eval/bleu"),
    ("GLEU", "eval/gleu"),
])
def test_metric_spellings_of_nmt_segmentation_and_benchmark_logs(key, name):
    """Names as training scripts print them (a misspelt `Thoughput`, `Negative loglikelihood`,
    `train_px_accuracy`, `ce-mean-words`, `BLEU4`, ...) land on the canonical metric."""
    assert table().resolve(key, "text").name == name


def test_rate_name_with_its_own_colon_after_a_value_is_a_key(tmp_path):
    """`steps: 10 loss: 2.2985 iter time (s): 0.400 samples/sec: 639.687` (a pipeline engine's line): a
    rate's name right after another value, with its own colon and number, names that number; it is
    not the unit of the value before it."""
    lines = [f"steps: {s} loss: {2.3 - s / 100:.4f} iter time (s): 0.32{s // 10} samples/sec: {800 + s}.5"
             for s in (10, 20, 30)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.2, 2.1, 2.0]
    assert _vals(run, "throughput") == [810.5, 820.5, 830.5]
    assert _vals(run, "step_time") == [0.321, 0.322, 0.323]


def test_hysteresis_overflow_keeps_the_attempted_loss_scale(tmp_path):
    """DeepSpeed's loss scaler with hysteresis: the first overflow only spends one tolerated overflow
    (`Attempted loss scale: 65536, but hysteresis is 2. Reducing hysteresis to 1`), so the scale stays
    at 65536; the overflows after it cut the scale (`... reducing to 32768`)."""
    head = "[2024-01-02 10:00:0{}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step."
    lines = [head.format(0) + " Attempted loss scale: 65536, but hysteresis is 2. Reducing hysteresis to 1",
             head.format(1) + " Attempted loss scale: 65536, reducing to 32768",
             head.format(2) + " Attempted loss scale: 32768, reducing to 16384"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss_scale") == [65536.0, 32768.0, 16384.0]


def test_metric_name_with_a_bracketed_variant_before_its_colon(tmp_path):
    """`dev bleu[13a]:  20.05 [Beam search decoding with beam size = 5 and alpha = 1.0]`: the bracket
    glued to the name says which tokenizer scored it; the name is still BLEU and its value the number."""
    lines = ["2023-05-01 12:00:00,001 - INFO - trainer - Epoch   3, Step:      300, Batch Loss:    41.2, Lr: 0.001",
             "2023-05-01 12:00:01,001 - INFO - trainer - Epoch   3, Step:      400, Batch Loss:    38.7, Lr: 0.001",
             "2023-05-01 12:00:09,000 - INFO - predict -  dev bleu[13a]:  18.25 [Greedy decoding]",
             "2023-05-01 12:00:19,000 - INFO - predict - test bleu[intl]:  17.5 [Greedy decoding]"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/bleu") == [18.25]
    assert _vals(run, "eval/test/bleu") == [17.5]
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 4


def test_bar_separated_record_wrapped_inside_names(tmp_path):
    """A Megatron iteration line hard-wrapped by a page over three lines, each cut inside a name of
    words (`... | learning` / ` rate: 4.4E-05 | ... | number of nan` / `iterations:  0 | ...`): one
    record, the names whole again."""
    lines = []
    for it, loss in ((500, "2.117073E+00"), (501, "2.116946E+00")):
        lines += [f"[default3]: iteration      {it}/ 100000 | consumed samples:      {it * 64} | elapsed time per iteration"
                  " (s): 10.51 | learning",
                  f" rate: 4.475E-05 | global batch size:    64 | lm loss: {loss} | grad norm: 0.150 | number of nan",
                  "iterations:   0 | samples per second: 19.474 | TFLOPs: 149.10 |"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "loss") == [2.117073, 2.116946]
    assert _vals(run, "learning_rate") == [4.475e-05, 4.475e-05]
    assert _vals(run, "throughput") == [19.474, 19.474]


def test_comma_separated_record_wrapped_inside_a_key(tmp_path):
    """fairseq's `key=value, ` line wrapped by a paste in the middle of one key (`..., bsz=16, num_update`
    then `s=809, lr=7.7e-06, ...`): the key's two halves are one identifier, the line one record."""
    lines = ["2020-02-08 15:20:07 | INFO | train | epoch 002:    199 / 609 loss=2.327, nll_loss=0.097, accuracy=19.7, "
             "wps=938.8, ups=2.44, wpb=384.7, bsz=16, num_update",
             "s=809, lr=7.68772e-06, gnorm=2.013, clip=0, oom=0, loss_scale=128, train_wall=63, ppl=1.07, wall=285",
             "2020-02-08 15:20:15 | INFO | train | epoch 002:    224 / 609 loss=2.301, nll_loss=0.095, accuracy=21.2, "
             "wps=941.0, ups=2.45, wpb=384.1, bsz=16, num_update",
             "s=834, lr=7.6e-06, gnorm=1.998, clip=0, oom=0, loss_scale=128, train_wall=71, ppl=1.07, wall=293"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert [float(s) for s in run.get("loss").steps] == [809.0, 834.0]
    assert _vals(run, "accuracy") == [19.7, 21.2]


def test_phase_time_and_rate_after_the_step_lines_is_no_row(tmp_path):
    """`Time cost=17408.26 s, Thoughput=15.15 samples/s` with no counter, after batch lines that each
    print `Time cost=` and `Thoughput=`: how long all of training (or the prediction after it) took and
    its mean rate, no step's reading."""
    lines = [f"INFO:gluonnlp:21:2{i}:00 Epoch: 1, Batch: {b}/32986, Loss={loss}, lr=0.0000005 Time cost=10{i}.4 "
             f"Thoughput=1{i}.89 samples/s"
             for i, (b, loss) in enumerate(((31999, 0.5883), (32399, 0.6331), (32799, 0.5904)))]
    lines += ["INFO:gluonnlp:21:31:07 Finish training step: 8246",
              "INFO:gluonnlp:21:31:07 Time cost=17408.26 s, Thoughput=15.15 samples/s",
              "INFO:gluonnlp:21:31:28 start prediction",
              "INFO:gluonnlp:21:34:43 Time cost=195.41 s, Thoughput=62.60 samples/s"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "throughput") == [10.89, 11.89, 12.89]


def test_mpirun_tags_inside_a_table_header(tmp_path):
    """mpirun --tag-output tags each write of a rank, so a header printed in two writes carries a second
    tag in its middle (`[1,3]<stdout>:Step[1,3]<stdout>:<TAB>Img/sec<TAB>total_loss ...`); the rows
    under it (tf_cnn_benchmarks) read by that header, their rate cell naming its unit
    (`images/sec: 492.6 +/- 0.0 (jitter = 0.0)`)."""
    lines = ["[1,3]<stdout>:Step[1,3]<stdout>:\tImg/sec\ttotal_loss\ttop_1_accuracy\ttop_5_accuracy",
             "[1,3]<stdout>:1\timages/sec: 492.6 +/- 0.0 (jitter = 0.0)\t9.844\t0.004\t0.008",
             "[1,3]<stdout>:10\timages/sec: 493.1 +/- 0.4 (jitter = 1.1)\t9.512\t0.006\t0.012",
             "[1,3]<stdout>:20\timages/sec: 493.4 +/- 0.3 (jitter = 0.9)\t9.301\t0.004\t0.010"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [9.844, 9.512, 9.301]
    assert _vals(run, "throughput") == [492.6, 493.1, 493.4]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 10.0, 20.0]


def test_results_files_of_name_equals_value_lines(tmp_path):
    """`eval_loss = 0.61` / `eval_matthews_correlation = 0.0` / `epoch = 3.0`: results files (HF's and
    BERT's `eval_results.txt`) pasted one after another, each a record of its own; a name the record
    already holds starts the next file's."""
    lines = ["$ cat out_a/eval_results.txt",
             "eval_loss = 0.612945020198822", "eval_accuracy = 0.69", "epoch = 3.0", "",
             "$ cat out_b/eval_results.txt",
             "eval_loss = 0.584", "eval_accuracy = 0.71", "epoch = 3.0"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "eval/loss") == [0.612945020198822, 0.584]
    assert _vals(run, "eval/accuracy") == [0.69, 0.71]
