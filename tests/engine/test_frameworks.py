"""Framework defaults as knowledge (knowledge/frameworks.yaml): which framework wrote a log, what it
does when the config says nothing, which causes cannot apply, and the knob in the run's own terms.

Each rule has a test that fails when the rule is broken: a recognised framework, a default used as
evidence (and a config beside the log that overrides it), a cause set aside for its `requires`, its
`frameworks` and its `domains`, the framework's knob shown first, and the checks of the file itself.
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest

from triage import api
from triage.engine.diagnosis import Diagnosis
from triage.engine.frameworks import build_table, framework_table
from triage.kb import loader
from triage.kb.base import KnowledgeBase
from triage.kb.validate import check

ROOT = Path(__file__).resolve().parents[2]
WILD = ROOT / "tests" / "wild" / "logs"
FIXTURES = ROOT / "tests" / "fixtures" / "logs"
SAMPLES = ROOT.parent / "shared" / "samples"


@pytest.fixture(scope="module")
def kb():
    return api.load_kb()


# -- logs in each framework's own format, with the same gradient-norm blow-up -------------------
def _series(n: int = 120):
    """A run that trains, then from step 60 has a gradient norm 60x its start: enough for the
    gradient-norm detectors, the same numbers in every format."""
    for i in range(1, n + 1):
        loss = 2.3 * math.exp(-i / 40) + 0.4 + (0.0 if i < 60 else 0.3 * math.sin(i))
        gn = 1.0 + 0.1 * math.cos(i) if i < 60 else 60.0 + 20 * math.sin(i)
        yield i, loss, gn


def hf_state(folder: Path, config: dict | None = None) -> Path:
    """trainer_state.json as the Trainer writes it (log_history rows with loss, grad_norm, learning_rate)."""
    folder.mkdir(parents=True)
    rows = [{"epoch": round(i / 120, 4), "grad_norm": gn, "learning_rate": 5e-5, "loss": loss, "step": i}
            for i, loss, gn in _series()]
    (folder / "trainer_state.json").write_text(json.dumps({"global_step": 120, "logging_steps": 1, "log_history": rows}))
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    return folder / "trainer_state.json"


def megatron_log(folder: Path) -> Path:
    """Megatron's `iteration N/M | ... | lm loss: ... | grad norm: ... |` lines."""
    folder.mkdir(parents=True)
    lines = [f" [2025-01-01 00:00:{i % 60:02d}] iteration {i * 10:8d}/    1200 | consumed samples: {i * 320:12d} | "
             f"elapsed time per iteration (ms): 812.5 | learning rate: 3.000000E-04 | global batch size:    32 | "
             f"lm loss: {loss:.6E} | loss scale: 1.0 | grad norm: {gn:.3f} | number of skipped iterations:   0 | "
             f"number of nan iterations:   0 |" for i, loss, gn in _series()]
    (folder / "train.log").write_text("\n".join(lines) + "\n")
    return folder / "train.log"


def lightning_csv(folder: Path, hparams: str | None = None) -> Path:
    """Lightning CSVLogger's metrics.csv (epoch, step, then the logged keys)."""
    folder.mkdir(parents=True)
    rows = ["epoch,step,grad_norm,train_loss"] + [f"{i // 40},{i},{gn},{loss}" for i, loss, gn in _series()]
    (folder / "metrics.csv").write_text("\n".join(rows) + "\n")
    if hparams is not None:
        (folder / "hparams.yaml").write_text(hparams)
    return folder / "metrics.csv"


def jsonl_log(folder: Path, config: dict | None = None) -> Path:
    """A plain JSON-lines log: no framework can be told from it."""
    folder.mkdir(parents=True)
    rows = [json.dumps({"step": i, "loss": loss, "grad_norm": gn, "learning_rate": 1e-3}) for i, loss, gn in _series()]
    (folder / "train.jsonl").write_text("\n".join(rows) + "\n")
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    return folder / "train.jsonl"


def _ids(doc: dict) -> list[str]:
    return [c["id"] for c in doc["causes"]]


def _aside(doc: dict) -> dict[str, str]:
    return {a["id"]: a["reason"] for a in doc["sources"][0]["context"]["set_aside"]}


# -- recognising the framework --------------------------------------------------------------------
@pytest.mark.parametrize("path, expect", [
    (FIXTURES / "hf" / "trainer_state.json", "hf_trainer"),
    (FIXTURES / "hf" / "events.out.tfevents.hf", "hf_trainer"),
    (WILD / "threads" / "unsloth" / "gemma4_gradnorm_spike_5207.txt", "hf_trainer"),
    (WILD / "wild19" / "llamafactory" / "train_metrics_block_train_loss_zero.txt", "hf_trainer"),  # log_metrics block
    (WILD / "threads" / "megatron" / "epfllm_slow_iterations_11.txt", "megatron"),
    (WILD / "threads" / "nemo" / "nemo2_stale_val_loss_740.txt", "megatron"),
    (WILD / "repos" / "keras" / "lan_detect_block.txt", "keras"),
    (FIXTURES / "synthetic" / "keras_training.csv", "keras"),
    (FIXTURES / "lightning" / "csv" / "version_0" / "metrics.csv", "lightning"),
    (FIXTURES / "sb3" / "progress.csv", "sb3_onpolicy"),
    (WILD / "more" / "sb3" / "breakout_dqn_lr5e-4.md", "sb3_dqn"),
    (FIXTURES / "sb3" / "0.monitor.csv", "sb3"),
    (WILD / "repos" / "yolov8" / "results_wheat.csv", "ultralytics"),
    (WILD / "threads" / "fairseq" / "pointer_generator_gnorm_spike_311.txt", "fairseq"),
    (WILD / "repos" / "detectron2" / "log_supervised_lr0.04_balance.txt", "detectron2"),
    (WILD / "repos" / "detectron2" / "metrics_fruit.json", "detectron2"),
    (WILD / "more" / "nanogpt" / "rope_iter_loss_head.txt", "nanogpt"),
    (WILD / "wild34" / "torchvision_ref" / "maskrcnn_finetune_10_epochs_log_string_in_py.txt", "torchvision_references"),
    (WILD / "wild34" / "torchvision_ref" / "torchvision_cls_vgg16bn_lr01_loss_blows_acc1_zero.txt", "torchvision_references"),
    (WILD / "wild36" / "spacy" / "spacy2_scorer_ents_f_91_to_95_five_runs.txt", "spacy"),
    (WILD / "wild33" / "ms_swift" / "ovis2_34b_lora_loss_0_grad_norm_0_from_step1.txt", "ms_swift"),
    # a Keras 2 paste of its epoch lines without the bars and their times: `loss: .. - val_loss: ..` twins
    (WILD / "wild42" / "keras" / "dsse_conv1d_reviews_val_loss_climbs_after_epoch2.txt", "keras"),
    # look-alikes: a torchvision loop and apex's printed lines under `Epoch N/M` headings (no Keras times, no
    # val_ twins)
    (WILD / "wild41" / "medical_cls" / "covid_xray_densenet_loss_6_acc_012_epochs47_50.txt", None),
    (WILD / "wild53" / "apex" / "apex_fp16_optimizer_grad_overflow_each_iteration_tqdm.txt", None),
    # look-alikes: dict-like lines that are not the Trainer's, an SB3-style table from OpenAI baselines
    (WILD / "repos" / "opennmt" / "onmt_log_block.txt", None),
    (WILD / "repos" / "baselines-her" / "fetch_push_openai_run1.txt", None),
    (FIXTURES / "synthetic" / "messy.jsonl", None),
])
def test_the_framework_is_recognised_from_the_log(kb, path, expect):
    run, _ = api.read_input(str(path))
    hit = framework_table(kb).recognise(run)
    assert (hit[0].id if hit else None) == expect, (run.format, run.meta.get("dialects"), sorted(s.source_key for s in run.series.values())[:12])
    if hit:
        assert hit[1], "every recognition says why"


def test_a_printed_dict_that_names_its_own_step_is_not_the_trainers(kb, tmp_path):
    # Trainer.log keeps the step for log_history; the dict its callbacks print has none
    lines = [f"{{'loss': {2.0 - 0.01 * i:.3f}, 'grad_norm': 1.0, 'learning_rate': 5e-05, 'epoch': {i / 100:.2f}}}"
             for i in range(1, 30)]
    p = tmp_path / "trainer.log"
    p.write_text("\n".join(lines) + "\n")
    assert framework_table(kb).recognise(api.read_input(str(p))[0])[0].id == "hf_trainer"
    q = tmp_path / "own_loop.log"
    q.write_text("\n".join(f"{{'step': {i}, " + ln[1:] for i, ln in enumerate(lines, 1)) + "\n")
    assert framework_table(kb).recognise(api.read_input(str(q))[0]) is None


def test_mmcv_json_lines_with_grad_norm_are_not_the_trainers(kb, tmp_path):
    # MMCV's log.json (and PySlowFast's json_stats) print `lr` and the loader's `data_time` beside grad_norm;
    # the Trainer's dicts say learning_rate and never time the loader
    p = tmp_path / "pasted.txt"  # (the lines pasted into an issue, each after a few words)
    p.write_text("\n".join("json line: " + json.dumps({"mode": "train", "epoch": 1, "iter": 20 * i, "lr": 0.01,
                                                      "memory": 3000, "data_time": 0.01, "loss": 1.0 / i,
                                                      "grad_norm": 2.0, "time": 0.3})
                           for i in range(1, 20)) + "\n")
    hit = framework_table(kb).recognise(api.read_input(str(p))[0])
    assert hit is None or hit[0].id != "hf_trainer"


def test_only_csvloggers_sorted_header_or_a_history_dump_is_read_as_keras(kb, tmp_path):
    # CSVLogger writes `epoch` and then sorted(logs.keys()); History saved with pandas has an unnamed index;
    # a loop's own `epoch,loss,accuracy,val_loss,val_accuracy` is neither
    def table(name, first, order):
        vals = {"loss": lambda i: 1.2 / i, "accuracy": lambda i: 0.5 + 0.04 * i,
                "val_loss": lambda i: 1.3 / i, "val_accuracy": lambda i: 0.45 + 0.04 * i}
        p = tmp_path / name
        p.write_text(",".join([first] + order) + "\n" + "\n".join(
            ",".join([str(i)] + [f"{vals[c](i):.4f}" for c in order]) for i in range(1, 9)) + "\n")
        hit = framework_table(kb).recognise(api.read_input(str(p))[0])
        return hit[0].id if hit else None

    assert table("logger.csv", "epoch", ["accuracy", "loss", "val_accuracy", "val_loss"]) == "keras"
    assert table("history.csv", "", ["loss", "accuracy", "val_loss", "val_accuracy"]) == "keras"
    assert table("own_loop.csv", "epoch", ["loss", "accuracy", "val_loss", "val_accuracy"]) is None


# -- defaults as evidence -------------------------------------------------------------------------
def test_hf_trainer_clips_by_default_so_no_clipping_is_set_aside(kb, tmp_path):
    doc = api.scan(str(hf_state(tmp_path / "hf")), kb=kb)
    ctx = doc["sources"][0]["context"]
    assert ctx["framework"]["id"] == "hf_trainer"
    assert ("Q-ops-grad-clip", "on") in [(d["question"], d["answer"]) for d in ctx["defaults"]]
    assert doc["_diag"].answers["Q-ops-grad-clip"].source == "default"
    assert "S-grad-clip-missing" not in _ids(doc)
    assert "max_grad_norm = 1.0" in _aside(doc)["S-grad-clip-missing"]


def test_megatron_clips_by_default(kb, tmp_path):
    doc = api.scan(str(megatron_log(tmp_path / "mg")), kb=kb)
    assert doc["sources"][0]["context"]["framework"]["id"] == "megatron"
    assert "S-grad-clip-missing" not in _ids(doc)
    assert "--clip-grad 1.0" in _aside(doc)["S-grad-clip-missing"]


def test_a_config_that_turns_clipping_off_wins_over_the_default(kb, tmp_path):
    doc = api.scan(str(hf_state(tmp_path / "hf", {"max_grad_norm": 0.0})), kb=kb)
    assert [d["setting"] for d in doc["sources"][0]["context"]["defaults"]] == ["training_loop"]
    assert doc["_diag"].answers["Q-ops-grad-clip"].value == "off"
    clip = next(c for c in doc["causes"] if c["id"] == "S-grad-clip-missing")
    assert "max_grad_norm = 0.0 in config.json (config)" in clip["evidence"]


def test_a_config_key_the_rules_cannot_read_still_blocks_the_default(kb, tmp_path):
    """A config that sets the framework's own key in a form no rule reads ("auto") says the
    default is not in force; no answer is better than the default's."""
    doc = api.scan(str(hf_state(tmp_path / "hf", {"max_grad_norm": "auto"})), kb=kb)
    assert "Q-ops-grad-clip" not in doc["_diag"].answers
    assert "grad_clip" not in [d["setting"] for d in doc["sources"][0]["context"]["defaults"]]


def test_lightning_does_not_clip_by_default_and_says_which_knob(kb, tmp_path):
    doc = api.scan(str(lightning_csv(tmp_path / "pl")), kb=kb)
    diag = doc["_diag"]
    assert diag.answers["Q-ops-grad-clip"].value == "off" and diag.answers["Q-ops-grad-clip"].source == "default"
    clip = next(c for c in doc["causes"] if c["id"] == "S-grad-clip-missing")
    assert clip["fix"][0]["knob"].startswith("Trainer(gradient_clip_val=") and clip["fix"][0]["framework"] == "PyTorch Lightning"
    assert len({f["knob"] for f in clip["fix"]}) == len(clip["fix"]), "two fixes of one setting become one knob"


def test_lightning_config_beside_the_log_wins(kb, tmp_path):
    doc = api.scan(str(lightning_csv(tmp_path / "pl", "gradient_clip_val: 1.0\n")), kb=kb)
    assert doc["_diag"].answers["Q-ops-grad-clip"].source == "config"
    assert "S-grad-clip-missing" not in _ids(doc) and "S-grad-clip-missing" in _aside(doc)


def test_an_unrecognised_log_keeps_todays_behaviour(kb, tmp_path):
    doc = api.scan(str(jsonl_log(tmp_path / "plain")), kb=kb)
    ctx = doc["sources"][0]["context"]
    assert ctx["framework"] is None and ctx["defaults"] == [] and ctx["set_aside"] == []
    assert "Q-ops-grad-clip" not in doc["_diag"].answers
    assert "S-grad-clip-missing" in _ids(doc)
    assert doc["causes"][0]["fix"][0]["knob"] == \
        str(kb[doc["causes"][0]["id"]].get("fix")[0]["knob"]).strip(), "no framework: the cause's own first knob"


def test_a_default_alone_is_not_a_problem(kb):
    """A healthy HF log: the framework is named, no default is used, nothing is set aside."""
    doc = api.scan(str(FIXTURES / "hf" / "trainer_state.json"), kb=kb)
    assert doc["healthy"] is True
    ctx = doc["sources"][0]["context"]
    assert ctx["framework"]["id"] == "hf_trainer" and ctx["defaults"] == [] and ctx["set_aside"] == []


# -- knobs in the run's own framework -------------------------------------------------------------
def test_keras_log_gets_keras_knobs_and_no_pytorch_only_causes(kb):
    doc = api.scan(str(WILD / "threads" / "keras" / "loss_nan_gpu_cnn_sentence_7.txt"), kb=kb)
    assert doc["sources"][0]["context"]["framework"]["id"] == "keras"
    clip = next(c for c in doc["causes"] if c["id"] == "S-grad-clip-missing")
    assert "global_clipnorm" in clip["fix"][0]["knob"] and clip["fix"][0]["framework"] == "Keras"
    log0 = next(c for c in doc["causes"] if c["id"] == "S-log-of-zero")
    assert all("torch" not in f["knob"] for f in log0["fix"]), log0["fix"]
    # torch.autograd anomaly detection cannot apply to a Keras run: set aside, with the reason
    assert "S-anomaly-detection" not in _ids(doc)
    assert "pytorch" in _aside(doc)["S-anomaly-detection"] and "Keras" in _aside(doc)["S-anomaly-detection"]


def test_a_fix_already_in_effect_goes_last_and_says_so(kb, tmp_path):
    doc = api.scan(str(hf_state(tmp_path / "hf")), kb=kb)
    unstable = next(c for c in doc["causes"] if c["id"] == "S-gradnorm-unstable")
    last = unstable["fix"][-1]
    assert last["knob"] == "TrainingArguments(max_grad_norm=1.0)" and last["range"].startswith("already in effect here")
    assert "max_grad_norm" not in unstable["fix"][0]["knob"]


def test_the_human_view_names_the_framework_and_what_was_set_aside(kb, tmp_path):
    from typer.testing import CliRunner

    from triage.cli import app

    log = hf_state(tmp_path / "hf")
    result = CliRunner().invoke(app, ["scan", str(log)], env={"COLUMNS": "240", "NO_COLOR": "1"})
    assert result.exit_code == 1, result.output
    assert "written by Hugging Face Trainer" in result.output
    assert "Hugging Face Trainer default: the Trainer clips" in result.output
    assert "Set aside" in result.output and "S-grad-clip-missing" in result.output.split("Set aside")[1]


# -- domains --------------------------------------------------------------------------------------
def test_a_class_count_rules_out_llm_and_vlm_causes(kb, tmp_path):
    bare = api.scan(str(jsonl_log(tmp_path / "bare")), kb=kb)
    told = api.scan(str(jsonl_log(tmp_path / "told", {"num_classes": 5})), kb=kb)
    assert "X2" in _ids(bare), "domain unknown: today's behaviour"
    assert "X2" not in _ids(told)
    assert "num_classes = 5" in _aside(told)["X2"]
    assert {"llm", "vlm"} <= set(told["sources"][0]["context"]["domains_ruled_out"])


def test_one_class_is_not_a_classifier(kb, tmp_path):
    """num_labels = 1 is a reward model's scalar head: no domain is ruled out."""
    doc = api.scan(str(jsonl_log(tmp_path / "rm", {"num_labels": 1})), kb=kb)
    assert doc["sources"][0]["context"]["domains_ruled_out"] == {} and "X2" in _ids(doc)


def test_a_framework_with_one_domain_answers_it(kb):
    doc = api.scan(str(WILD / "more" / "sb3" / "breakout_ppo_then_dqn_killed.md"), kb=kb)
    assert doc["sources"][0]["context"]["domain"] == "rl"
    assert "written by Stable-Baselines3" in doc["_diag"].answers["Q-domain"].evidence


def test_an_llm_framework_answers_llm_unless_a_metric_names_the_task_more_narrowly(kb):
    """ms-swift trains language models only: its SFT log is an llm run. Its GRPO log carries reward_std,
    which names the task (rlhf) more narrowly than the framework does, so the metric wins."""
    sft = api.scan(str(WILD / "wild33" / "ms_swift" / "ovis2_34b_lora_loss_0_grad_norm_0_from_step1.txt"), kb=kb)
    assert sft["sources"][0]["context"]["domain"] == "llm"
    assert "written by ms-swift" in sft["_diag"].answers["Q-domain"].evidence
    grpo = api.scan(str(WILD / "wild58" / "ms_swift" / "multiturn_grpo_reward_zero_grad_zero_then_server_500.txt"), kb=kb)
    assert grpo["sources"][0]["context"]["domain"] == "rlhf"
    assert "S-grpo-reward-zero" in _ids(grpo)


def test_known_domain_keeps_other_domains_causes_out(kb):
    diag = Diagnosis(kb)
    assert diag.inapplicable("V6") is None and diag.inapplicable("X2") is None
    diag.answer("Q-start", "unstable")
    diag.answer("Q-domain", "llm", "log", "domain llm (the log has tokens)")
    assert "vision-cls" in diag.inapplicable("V6") and diag.inapplicable("X2")
    assert diag.inapplicable("L6") is None and diag.inapplicable("S-spike") is None  # llm and any
    diag.answer("Q-domain", "unknown", "you")
    assert diag.inapplicable("V6") is None


# -- requires -------------------------------------------------------------------------------------
def test_requires_sets_aside_only_on_a_contradicting_answer(kb):
    diag = Diagnosis(kb)
    diag.answer("Q-start", "nan")
    assert diag.inapplicable("S-fp16-overflow") is None
    diag.answer("Q-precision", "bf16", "config", "bf16 = True in config.json")
    assert "bf16 = True in config.json" in diag.inapplicable("S-fp16-overflow")
    assert diag.inapplicable("S-bf16-precision") is None
    assert "S-fp16-overflow" not in [c.id for c in diag.ranking()]
    diag.answer("Q-precision", "unknown", "you")
    assert diag.inapplicable("S-fp16-overflow") is None


def _bleu_log(folder: Path, extra: dict | None = None) -> Path:
    """A translation run whose BLEU stays near 0 while its loss falls (degenerate outputs)."""
    folder.mkdir(parents=True)
    rows = [{"step": i * 500, "loss": round(3.2 - 0.15 * i, 2)} for i in range(1, 9)]
    for k, row in enumerate(rows[1::2]):
        row.update({"eval/bleu": [0.4, 1.2, 0.8, 1.1][k], **(extra or {})})
    (folder / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder / "train.jsonl"


def test_a_run_scored_by_bleu_sets_the_ctc_cause_aside(kb, tmp_path):
    """metrics.yaml `facts`: BLEU names generated text, so Q-pb-ctc-blank is answered "not-ctc" from the
    log and PB-ctc-blank (which requires a CTC model) is set aside, saying why; a run that logs a WER beside
    its BLEU (a recognition head trained with CTC) keeps it. CMC ranks (re-identification) say the same."""
    doc = api.scan(str(_bleu_log(tmp_path / "nmt")), kb=kb)
    answer = doc["_diag"].answers["Q-pb-ctc-blank"]
    assert (answer.value, answer.source) == ("not-ctc", "log")
    assert answer.evidence.startswith("the log has eval/bleu: BLEU and ROUGE score text that a decoder generates")
    assert "PB-ctc-blank" not in _ids(doc) and "PB-decode-repetition" in _ids(doc)[:3]
    assert "the log has eval/bleu" in _aside(doc)["PB-ctc-blank"]
    both = api.scan(str(_bleu_log(tmp_path / "slt", {"eval/wer": 0.9})), kb=kb)
    assert "Q-pb-ctc-blank" not in both["_diag"].answers and "PB-ctc-blank" in _ids(both)
    (tmp_path / "reid").mkdir()
    rows = [{"step": i, "loss": 6.6 - 0.01 * i, **({"eval/rank1": 0.0, "eval/map": 0.0} if i % 5 == 0 else {})}
            for i in range(1, 21)]
    (tmp_path / "reid" / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    reid = api.scan(str(tmp_path / "reid" / "train.jsonl"), kb=kb)
    assert reid["_diag"].answers["Q-pb-ctc-blank"].evidence.startswith("the log has eval/rank1: CMC ranks")
    assert "PB-ctc-blank" not in _ids(reid)


def test_context_survives_a_saved_session(kb, tmp_path):
    doc = api.scan(str(WILD / "threads" / "keras" / "loss_nan_gpu_cnn_sentence_7.txt"), kb=kb)
    again = Diagnosis(kb)
    again.load_dict(doc["_diag"].to_dict())
    assert again.context.framework.id == "keras"
    assert again.inapplicable("S-anomaly-detection")


# -- the knowledge file ---------------------------------------------------------------------------
def test_every_shipped_default_cites_a_url_and_every_clipping_default_is_used(kb):
    table = framework_table(kb)
    assert {"hf_trainer", "megatron", "lightning", "keras", "deepspeed", "sb3", "ultralytics", "fairseq",
            "detectron2", "pytorch"} <= {f.id for f in table.frameworks}
    for fw in table.frameworks:
        for s in fw.settings.values():
            assert s.source.startswith("https://") and s.says, (fw.id, s.name)
    # the version-dependent DeepSpeed default is knowledge only, never evidence
    assert table.get("deepspeed").settings["grad_clip"].answers == {}
    assert table.get("hf_trainer").settings["grad_clip"].answers == {"Q-ops-grad-clip": "on"}


def test_a_users_frameworks_file_overrides_by_id_and_is_tried_first():
    builtin = {"frameworks": [{"id": "keras", "title": "Keras", "stack": "keras", "recognise": [], "settings": {}}]}
    user = {"frameworks": [{"id": "keras", "title": "My Keras", "stack": "keras", "recognise": [], "settings": {}},
                           {"id": "mine", "title": "Mine", "stack": "pytorch", "recognise": [], "settings": {}}]}
    table = build_table([("a", builtin), ("b", user)])
    assert [f.id for f in table.frameworks] == ["mine", "keras"] and table.get("keras").title == "My Keras"


KB_FILES = {
    "symptoms/Q-start.yaml": """
        id: Q-start
        kind: symptom
        question: What do you see?
        help: Pick one.
        answers:
          - {value: nan, label: NaN}
          - {value: flat, label: Flat}
    """,
    "symptoms/Q-clip.yaml": """
        id: Q-clip
        kind: symptom
        question: Clipping?
        help: Look.
        when: {Q-start: nan}
        answers:
          - {value: "on", label: "On"}
          - {value: "off", label: "Off"}
    """,
    "causes/S-alpha.yaml": """
        id: S-alpha
        kind: cause
        title: Alpha
        family: stability
        domains: [any]
        frameworks: [pytorch]
        requires: {Q-clip: "off"}
        prior: common
        symptoms: [It breaks.]
        why: Because.
        fix:
          - {knob: "torch.nn.utils.clip_grad_norm_(params, 1.0)", setting: grad_clip, range: "1.0", expect: "no spikes"}
        verify: Run it.
        signs: {Q-start: nan, Q-clip: "off"}
    """,
    "frameworks.yaml": """
        stacks: {pytorch: PyTorch}
        settings: {grad_clip: {title: clipping, in_effect: {Q-clip: "on"}}}
        frameworks:
          - id: mine
            title: Mine
            covers: my trainer
            stack: pytorch
            recognise:
              - formats: [jsonl]
                because: it is mine
            settings:
              grad_clip:
                keys: [clip]
                default: 1.0
                answers: {Q-clip: "on"}
                says: it clips
                source: https://example.org/docs
    """,
}


def _problems(tmp_path: Path, files: dict[str, str]) -> list[str]:
    root = tmp_path / "kb"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    kb = KnowledgeBase.load([str(root)], use_cache=False, builtin=False)
    return [p.format() for p in check(kb) if p.severity == "error"]


def test_a_valid_frameworks_file_passes_the_check(tmp_path):
    assert _problems(tmp_path, KB_FILES) == []


@pytest.mark.parametrize("old, new, message", [
    ("answers: {Q-clip: \"on\"}", "answers: {Q-clip: maybe}", "Q-clip has no answer 'maybe'"),
    ("source: https://example.org/docs", "source: the docs", "source must be a URL"),
    ("                because: it is mine\n", "", "needs a `because`"),
    ("stack: pytorch\n            recognise", "stack: jax\n            recognise", "unknown stack 'jax'"),
    ("              grad_clip:\n                keys", "              clipping:\n                keys", "unknown setting 'clipping'"),
    ("                says: it clips\n", "                says: it clips\n                colour: red\n", "unknown field `colour`"),
])
def test_frameworks_file_problems_name_file_and_line(tmp_path, old, new, message):
    files = dict(KB_FILES)
    assert old in files["frameworks.yaml"]
    files["frameworks.yaml"] = files["frameworks.yaml"].replace(old, new)
    probs = _problems(tmp_path, files)
    hit = [p for p in probs if message in p]
    assert hit and "frameworks.yaml:" in hit[0], probs
    assert not hit[0].split("frameworks.yaml:")[1].startswith("0:"), "a line number, not 0"


@pytest.mark.parametrize("old, new, message", [
    ("frameworks: [pytorch]", "frameworks: [tensorflow]", "unknown framework or stack 'tensorflow'"),
    ("requires: {Q-clip: \"off\"}", "requires: {Q-clip: sometimes}", "Q-clip has no answer 'sometimes'"),
    ("setting: grad_clip", "setting: clipping", "is not a setting of frameworks.yaml"),
    ("setting: grad_clip,", "setting: grad_clip, colour: red,", "fix[0] has unknown fields: colour"),
])
def test_cause_applicability_fields_are_checked(tmp_path, old, new, message):
    files = dict(KB_FILES)
    files["causes/S-alpha.yaml"] = files["causes/S-alpha.yaml"].replace(old, new)
    probs = _problems(tmp_path, files)
    assert any("S-alpha.yaml:" in p and message in p for p in probs), probs


@pytest.mark.parametrize("fact, message", [
    ("{metrics: [eval/bleu], question: Q-clip, answer: \"on\"}", None),
    ("{metrics: [eval/bleu], question: Q-nope, answer: \"on\"}", "facts[0]: unknown question 'Q-nope'"),
    ("{metrics: [eval/bleu], question: Q-clip, answer: maybe}", "facts[0]: Q-clip has no answer 'maybe'"),
    ("{question: Q-clip, answer: \"on\"}", "facts[0] needs `metrics`, `question` and `answer`"),
])
def test_metric_facts_are_checked(tmp_path, fact, message):
    """metrics.yaml `facts`: a rule's question must exist and have its answer (file and line named)."""
    files = dict(KB_FILES, **{"metrics.yaml": f"facts:\n  - {fact}\n"})
    probs = _problems(tmp_path, files)
    if message is None:
        assert probs == []
    else:
        assert any(p.startswith(str(tmp_path / "kb" / "metrics.yaml") + ":2: ") and message in p for p in probs), probs


@pytest.mark.parametrize("words, message", [
    ("training_words:\n  measures: [loss, nan]\n", None),
    ("training_words:\n  measures: loss\n", "training_words.measures must be a list of words"),
    ("training_words:\n  measures: [loss, 3]\n", "training_words.measures must be a list of words"),
])
def test_training_words_are_checked(tmp_path, words, message):
    """metrics.yaml `training_words`: groups of plain words (a bare string or a number is named)."""
    probs = _problems(tmp_path, dict(KB_FILES, **{"metrics.yaml": words}))
    if message is None:
        assert probs == []
    else:
        assert any(str(tmp_path / "kb" / "metrics.yaml") in p and message in p for p in probs), probs


def test_frameworks_file_goes_through_the_cache_unchanged(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TRIAGE_NO_CACHE", raising=False)
    fresh = loader.load(use_cache=False)
    loader.load()  # writes the cache
    assert list((tmp_path / "cache").glob("kb-*.msgpack"))
    warm = loader.load()
    assert [p for p, _ in warm.extras["frameworks"]] == [p for p, _ in fresh.extras["frameworks"]]
    assert json.dumps(warm.extras["frameworks"][0][1], sort_keys=True) == \
        json.dumps(fresh.extras["frameworks"][0][1], sort_keys=True)
    assert [f.id for f in build_table(warm.extras["frameworks"]).frameworks] == \
        [f.id for f in build_table(fresh.extras["frameworks"]).frameworks]


def test_a_saved_keras_history_is_recognised_by_its_val_twins(kb, tmp_path):
    """model.fit's History written as a table (no epoch column): every metric beside its val_ twin."""
    from triage.kb.frameworks import _twinned

    hist = tmp_path / "log.csv"
    hist.write_text("val_loss,val_accuracy,loss,accuracy,lr\n" + "".join(
        f"{1.2 - 0.05 * i:.3f},{0.4 + 0.02 * i:.3f},{1.1 - 0.05 * i:.3f},{0.45 + 0.02 * i:.3f},0.001\n" for i in range(8)))
    doc = api.public(api.scan(str(hist), kb=kb))
    assert doc["sources"][0]["context"]["framework"]["id"] == "keras"
    assert _twinned(frozenset({"loss", "val_loss", "acc", "val_acc"}), "val_")
    assert not _twinned(frozenset({"loss", "val_loss"}), "val_")  # one pair is any table
    assert not _twinned(frozenset({"loss", "val_loss", "acc", "val_acc", "grad_norm", "lr"}), "val_")


def test_a_keras_history_saved_as_json_columns_is_read_and_recognised(kb, tmp_path):
    """json.dump(history.history, f): one line, a dict of equal-length lists, in a .json file."""
    hist = tmp_path / "history.json"
    hist.write_text(json.dumps({"loss": [1.0, 0.8, 0.7, 0.65], "accuracy": [0.3, 0.5, 0.6, 0.62],
                                "val_loss": [1.1, 0.9, 0.8, 0.78], "val_accuracy": [0.3, 0.4, 0.5, 0.52]}))
    run, _ = api.read_input(str(hist))
    assert run.format == "json" and sorted(run.series) == ["accuracy", "eval/accuracy", "eval/loss", "loss"]
    assert len(run.series["loss"]) == 4
    doc = api.public(api.scan(str(hist), kb=kb))
    assert doc["sources"][0]["context"]["framework"]["id"] == "keras"


def test_a_loss_at_ln_c_with_accuracy_at_chance_is_a_classifier_so_llm_causes_are_set_aside(kb, tmp_path):
    log = tmp_path / "log.jsonl"
    rows = [{"step": i, "loss": round(math.log(3) + 0.01 * math.sin(i), 4), "accuracy": 0.333 + 0.005 * math.cos(i)}
            for i in range(1, 41)]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    doc = api.public(api.scan(str(log), kb=kb))
    ruled_out = doc["sources"][0]["context"]["domains_ruled_out"]
    assert "llm" in ruled_out and "3 classes" in ruled_out["llm"]
    # the same numbers from a language model whose vocabulary has 3 tokens: nothing ruled out
    (tmp_path / "config.json").write_text(json.dumps({"vocab_size": 3}))
    doc = api.public(api.scan(str(log), kb=kb))
    assert "llm" not in doc["sources"][0]["context"]["domains_ruled_out"]


def test_an_accuracy_at_zero_rules_out_detection_and_segmentation(kb, tmp_path):
    """Eval accuracy exactly 0 at four evaluations while the loss falls: a classifier's score, so the
    box and mask causes (mAP, mIoU at 0) are set aside and a label shift can rank."""
    p = tmp_path / "train.log"
    p.write_text("".join(f"epoch {e} train_loss {2.3 - 0.3 * e:.3f} val_acc 0.0\n" for e in range(1, 6)), encoding="utf-8")
    doc = api.scan(str(p), kb=kb)
    ruled_out = doc["sources"][0]["context"]["domains_ruled_out"]
    assert {"detection", "segmentation"} <= set(ruled_out)
    assert "accuracy" in ruled_out["detection"]
    assert not {"V3", "V4", "V5"} & set(_ids(doc))
    assert "DP-label-mapping" in _ids(doc)[:3]


def test_a_median_printing_framework_is_not_judged_for_recurring_values(kb, tmp_path):
    """MetricLogger prints the median of the last 20 losses, so the same median comes back at nearby
    lines: det-loss-recurring (except_frameworks) stays quiet on a torchvision-references log and
    judges the same values printed by a plain loop."""
    from triage.detect import run_detector

    values = [2.4622, 2.7455, 2.4622, 1.4305, 1.4338, 1.4305, 1.4338, 1.4305, 1.4338, 1.4305, 1.2811, 1.4338] * 2
    head = "Epoch: [0]  [{i}/24]  eta: 0:00:01  lr: 0.005  loss: {v:.4f} ({v:.4f})  loss_objectness: 0.2731 (0.3)  loss_rpn_box_reg: 0.1226 (0.1)  time: 0.9  data: 0.01  max mem: 3120"
    (tmp_path / "tv.txt").write_text("\n".join(head.format(i=i, v=v) for i, v in enumerate(values)) + "\n")
    plain = "step {i} loss {v:.4f}"
    (tmp_path / "plain.txt").write_text("\n".join(plain.format(i=i, v=v) for i, v in enumerate(values)) + "\n")
    node = kb["det-loss-recurring"]
    tv, _ = api.read_input(str(tmp_path / "tv.txt"))
    loop, _ = api.read_input(str(tmp_path / "plain.txt"))
    assert framework_table(kb).recognise(tv)[0].id == "torchvision_references"
    tv.meta["framework"] = "torchvision_references"
    assert run_detector(node, tv) is None
    assert run_detector(node, loop) is not None


def test_spacys_token_accuracy_at_100_is_the_tokenizer_not_a_finding(kb, tmp_path):
    """spaCy's scorer prints token_acc (the tokenizer against gold tokens: 100 on pre-tokenized data)
    beside ents_f; an accuracy pinned at 1 is no finding there, while the same dicts without the
    spaCy keys are."""
    from triage.detect import run_detector

    lines = [f"{{'uas': 0.0, 'las': 0.0, 'ents_p': {90 + i}.1, 'ents_r': {91 + i}.2, 'ents_f': {90.5 + i:.2f}, "
             f"'tags_acc': 0.0, 'token_acc': 100.0}}\n" for i in range(5)]
    (tmp_path / "spacy.txt").write_text("".join(lines), encoding="utf-8")
    run, _ = api.read_input(str(tmp_path / "spacy.txt"))
    assert framework_table(kb).recognise(run)[0].id == "spacy"
    run.meta["framework"] = "spacy"
    assert run_detector(kb["det-accuracy-pinned-one"], run) is None
    other = [f"{{'loss': {0.5 - 0.01 * i:.3f}, 'accuracy': 1.0}}\n" for i in range(5)]
    (tmp_path / "plain.txt").write_text("".join(other), encoding="utf-8")
    plain, _ = api.read_input(str(tmp_path / "plain.txt"))
    assert run_detector(kb["det-accuracy-pinned-one"], plain) is not None


def test_a_keras_loss_at_the_clamp_is_saturation_not_a_missing_clip(kb, tmp_path):
    """Keras clips probabilities at 1e-7, so hard wrong answers cost 16.118 each: a loss of 8.06 beside
    an accuracy of 0.5, epoch after epoch, is a saturated output. The clipping Keras leaves off by
    default has nothing to do with it; too large a step or an output that cannot express the target does."""
    lines = [f"Epoch {e}/12\n120/120 [==============================] - 1s 5ms/step - loss: {8.0590 + 0.0001 * (e % 3):.4f}"
             f" - accuracy: {0.5000 - 0.00001 * (e % 3):.4f}\n" for e in range(1, 13)]
    log = tmp_path / "fit.txt"
    log.write_text("".join(lines), encoding="utf-8")
    doc = api.scan(str(log), kb=kb)
    top = _ids(doc)[:3]
    assert "S-lr-too-high" in top and "PB-output-target" in top
    assert "S-grad-clip-missing" not in top


def test_model_card_results_table_is_the_trainers(tmp_path):
    """A model card's `Training results` table is written by the Trainer: its run gets the Trainer's
    defaults and its NaN filter (a training loss of 0.0 beside NaN evaluations)."""
    from triage import api
    from triage.kb.frameworks import framework_table

    rows = "".join(f"| {0.0 if i > 1 else 'No log'} | {i * 0.27:.4f} | {i * 6} | nan |\n" for i in range(1, 6))
    p = tmp_path / "README.md"
    p.write_text("## Training results\n\n| Training Loss | Epoch | Step | Validation Loss |\n"
                 "|:---:|:---:|:---:|:---:|\n" + rows, encoding="utf-8")
    run, _ = api.read_input(str(p))
    assert run.meta.get("writer") == "hf_model_card"
    assert framework_table(api.load_kb()).recognise(run)[0].id == "hf_trainer"


def test_a_framework_that_owns_its_loop_sets_aside_a_mis_ordered_step(kb, tmp_path):
    """The Trainer calls backward, step and zero_grad itself: a mis-ordered step (O4) cannot happen there and is
    set aside with that reason; the default is context, not evidence, so it lends no cause support. A log no
    framework is recognised in keeps O4 in play."""
    doc = api.scan(str(hf_state(tmp_path / "hf")), kb=kb)
    assert "O4" not in _ids(doc) and "training_loop" in [d["setting"] for d in doc["sources"][0]["context"]["defaults"]]
    assert "the Trainer's own loop" in _aside(doc)["O4"]
    assert all("own loop" not in line for c in doc["causes"] for line in c["evidence"])
    plain = api.scan(str(jsonl_log(tmp_path / "plain")), kb=kb)
    assert "O4" not in _aside(plain) and "Q-opt-loop-order" not in plain["_diag"].answers


def detectron2_metrics(folder: Path, keys: tuple[str, str, str] = ("total_loss", "loss_cls", "loss_box_reg")) -> Path:
    """metrics.json lines as detectron2 writes them, with a loss that trains and then blows up (other key names:
    the same numbers with no framework to tell)."""
    folder.mkdir(parents=True)
    rows = []
    for i in range(1, 121):
        loss = 2.3 * math.exp(-i / 40) + 0.4 if i < 60 else 0.6 * 10 ** ((i - 60) / 6)
        rows.append(json.dumps({"iteration": i * 20, "lr": 0.02, **dict(zip(keys, (loss, loss * 0.6, loss * 0.4)))}))
    (folder / "metrics.json").write_text("\n".join(rows) + "\n")
    return folder / "metrics.json"


def test_a_framework_for_some_domains_sets_aside_the_others_causes(kb, tmp_path):
    """detectron2 trains detectors and segmenters only (`rules_out_domains`): causes of a transformer LM's
    logits (L6, S-qk-norm) are set aside on its run with that reason; the same numbers with no framework to
    tell keep them in play."""
    d2 = api.scan(str(detectron2_metrics(tmp_path / "d2")), kb=kb)
    ctx = d2["sources"][0]["context"]
    assert ctx["framework"]["id"] == "detectron2" and {"llm", "vision-cls"} <= set(ctx["domains_ruled_out"])
    assert "L6" not in _ids(d2) and "written by Detectron2" in _aside(d2)["L6"]
    assert "S-grad-explosion" in _ids(d2)[:3]
    plain = api.scan(str(detectron2_metrics(tmp_path / "plain", ("loss", "loss_a", "loss_b"))), kb=kb)
    assert "L6" in _ids(plain) and plain["sources"][0]["context"]["domains_ruled_out"] == {}
