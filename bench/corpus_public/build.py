#!/usr/bin/env python
"""Build bench/corpus_public/runs from public, labelled benchmarks of buggy DNN training programs.

    python bench/corpus_public/build.py [--mirrors /work/.mirror] [--out bench/corpus_public/runs]

Every run is a per-epoch Keras CSVLogger file (`val_loss,val_accuracy,loss,accuracy`) published in
one of three research repositories, pinned by commit:

  shiningrain/AUTOTRAINER   (ICSE'21)  demo cases and the authors' problem-reproduction logs
  DeepDiagnosis/ICSE2022    (ICSE'22)  AUTOTRAINER-dataset "normal" models and two diagnosed faults
  ArabelaTso/DeepFD         (ICSE'22)  the two benchmark subjects shipped with runtime logs

Each repository is read from a local bare mirror (made with the project's `fetch` tool) with
`git show COMMIT:PATH`, so the bytes are the published bytes. The one conversion: four AUTOTRAINER
logs were committed with unresolved merge-conflict markers, i.e. two complete CSVLogger runs of the
same script in one file; each side becomes its own run (`transform: conflict-ours|conflict-theirs`).

The label of each run is the dataset's own label (kept verbatim in `source.dataset_label`) mapped to
the triage cause IDs an engineer would accept (MAPPING below). Labels were written before triage was
run on any of these logs, and are not to be changed after seeing its output.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

AT = "shiningrain/AUTOTRAINER"
AT_DEMO = "aafa2a4a529d994ff26dc66e659eb7b4f6ea2af3"   # demo cases still in the tree
AT_DEV = "8a7d8641630dbae1e35a300bad987d0b4338d73a"    # DL_tools/ reproduction logs still in the tree
DD = "DeepDiagnosis/ICSE2022"
DD_C = "500b0176e38d53bf6744231526c545e0554a2230"
FD = "ArabelaTso/DeepFD"
FD_C = "9fe089510cf10af35b0c2cba024d9732a1048df4"

# dataset label -> acceptable triage causes; the first is the family the accuracy table groups by
MAPPING = {
    # AUTOTRAINER "vanish": gradients shrink layer by layer (deep sigmoid/tanh stacks, bad init), so the
    # loss sits near its starting value; triage has no dedicated node, the plateau and the saturation /
    # dead-unit nodes (O25 names saturated sigmoid/tanh tails, O26 the collapsed distributions) are what
    # an engineer would accept.
    "vanish": ["S-plateau", "O25", "O26"],
    # AUTOTRAINER "relu" / DyingReLU
    "dying_relu": ["O25", "S-lr-too-high", "S-plateau", "O26"],
    # AUTOTRAINER "explode" / GradientExplode
    "explode": ["S-grad-explosion", "S-nan", "S-lr-too-high", "S-grad-clip-missing", "S-gradnorm-unstable"],
    # AUTOTRAINER "unstable" / Oscillating loss / TrainingUnstable (its repairs: Adam, lower LR,
    # ReduceLROnPlateau, larger batch, momentum, gradient noise)
    "unstable": ["S-lr-too-high", "S-gradnorm-unstable", "S-spike", "S-effective-batch-mismatch"],
    # AUTOTRAINER "not_converge" / slow convergence; DeepFD "Epoch" (too few epochs for the LR)
    "slow": ["S-lr-too-low", "O7", "S-plateau"],
}


def causes(*families: str, extra: tuple[str, ...] = ()) -> list[str]:
    """Union of the mapped families, in order, plus run-specific extras; no duplicates."""
    out: list[str] = []
    for cid in [c for f in families for c in MAPPING[f]] + list(extra):
        if cid not in out:
            out.append(cid)
    return out


def run(rid, repo, commit, path, *, healthy, fams=(), extra=(), fault, dataset_label, basis, model,
        transform=None, notes=None):
    return {"id": rid, "repo": repo, "commit": commit, "path": path, "transform": transform,
            "healthy": healthy, "causes": [] if healthy else causes(*fams, extra=extra), "fault": fault,
            "dataset_label": dataset_label, "basis": basis, "model": model, "notes": notes}


AT_DEMO_BASIS = "AUTOTRAINER demo case, named by the problem it reproduces (README: 'Demo')"
AT_DEV_BASIS = ("DL_tools/ReadMe.md: code/<Problem>/caseNN*.py reproduce 5 problems (Dying ReLU, Vanishing "
                "Gradient, Exploding Gradient, Training Unstable, Not Converge) and log to log/caseNN*/; the "
                "log is labelled by the problem folder of the script that writes it")
DD_NORMAL_BASIS = ("AUTOTRAINER dataset split 'normal' (path .../<Dataset>/normal/<model>/ recorded in the "
                   "run's own explode.csv/vanish.csv); DeepDiagnosis README: 'result of AUTOTRAINER on normal "
                   "models'. AUTOTRAINER stopped each run when it (falsely) reported a problem, so the log "
                   "ends there")

RUNS = [
    # ---- AUTOTRAINER demo cases (Circle / Blob toy data, small Keras MLPs)
    run("at-demo-gradient-vanish", AT, AT_DEMO, "AutoTrainer/demo_case/Gradient_Vanish_Case/tmp/log_dir/log.csv",
        healthy=False, fams=("vanish",), fault="Gradient vanish demo (AUTOTRAINER repaired it with SeLU + lecun init)",
        dataset_label="Gradient_Vanish_Case", basis=AT_DEMO_BASIS, model="mlp-circle"),
    run("at-demo-oscillating-loss", AT, AT_DEMO, "AutoTrainer/demo_case/Oscillating_Loss_Case/tmp/log_dir/log.csv",
        healthy=False, fams=("unstable",), fault="Oscillating loss demo; AUTOTRAINER flags 'unstable' at epoch 60 "
        "and repairs it by switching to Adam", dataset_label="Oscillating_Loss_Case", basis=AT_DEMO_BASIS,
        model="mlp-blob"),
    # ---- AUTOTRAINER problem-reproduction logs (DL_tools/, removed from the tree later)
    run("at-dev-case14-a", AT, AT_DEV, "DL_tools/log/case14/case14.csv", transform="conflict-ours",
        healthy=False, fams=("dying_relu",), fault="Dying ReLU: deep narrow ReLU MLP, RandomUniform init",
        dataset_label="DyingReLU (code/DyingReLU/case14.py)", basis=AT_DEV_BASIS, model="mlp"),
    run("at-dev-case14-b", AT, AT_DEV, "DL_tools/log/case14/case14.csv", transform="conflict-theirs",
        healthy=False, fams=("dying_relu",), fault="Dying ReLU: deep narrow ReLU MLP, RandomUniform init",
        dataset_label="DyingReLU (code/DyingReLU/case14.py)", basis=AT_DEV_BASIS, model="mlp"),
    run("at-dev-case14-tmp", AT, AT_DEV, "DL_tools/log/case14_tmp/case14_tmp.csv",
        healthy=False, fams=("dying_relu",), fault="Dying ReLU: deep narrow ReLU MLP (case14.py writes case14_tmp)",
        dataset_label="DyingReLU (code/DyingReLU/case14.py)", basis=AT_DEV_BASIS, model="mlp"),
    run("at-dev-case14-circle", AT, AT_DEV, "DL_tools/log/case14_circle/case14_circle.csv",
        healthy=False, fams=("dying_relu",), fault="Dying ReLU on the circle data (circle_case.py)",
        dataset_label="DyingReLU (code/DyingReLU/circle_case.py)", basis=AT_DEV_BASIS, model="mlp-circle"),
    run("at-dev-case14-cnn-a", AT, AT_DEV, "DL_tools/log/case14_cnn/case14_cnn.csv", transform="conflict-ours",
        healthy=False, fams=("dying_relu",), fault="Dying ReLU: CIFAR-10 CNN with a deep ReLU head, RandomUniform init",
        dataset_label="DyingReLU (code/DyingReLU/case14-cnn.py)", basis=AT_DEV_BASIS, model="cnn-cifar10"),
    run("at-dev-case14-cnn-b", AT, AT_DEV, "DL_tools/log/case14_cnn/case14_cnn.csv", transform="conflict-theirs",
        healthy=False, fams=("dying_relu",), fault="Dying ReLU: CIFAR-10 CNN with a deep ReLU head, RandomUniform init",
        dataset_label="DyingReLU (code/DyingReLU/case14-cnn.py)", basis=AT_DEV_BASIS, model="cnn-cifar10"),
    # case16/case16.csv is written both by code/GradientVanish/case16.py (7 sigmoid layers) and by
    # code/TrainingNotConverge/case_24_test_from_case16.py (SGD lr 1e-5): either label is accepted
    run("at-dev-case16-a", AT, AT_DEV, "DL_tools/log/case16/case16.csv", transform="conflict-ours",
        healthy=False, fams=("vanish", "slow"), fault="Vanishing gradient (7 sigmoid layers) or not converging "
        "(SGD lr 1e-5): two scripts write this log", dataset_label="GradientVanish case16 / TrainingNotConverge "
        "case_24_test_from_case16", basis=AT_DEV_BASIS, model="mlp"),
    run("at-dev-case16-b", AT, AT_DEV, "DL_tools/log/case16/case16.csv", transform="conflict-theirs",
        healthy=False, fams=("vanish", "slow"), fault="Vanishing gradient (7 sigmoid layers) or not converging "
        "(SGD lr 1e-5): two scripts write this log", dataset_label="GradientVanish case16 / TrainingNotConverge "
        "case_24_test_from_case16", basis=AT_DEV_BASIS, model="mlp"),
    run("at-dev-case16-cnn", AT, AT_DEV, "DL_tools/log/case16_cnn/case16_cnn.csv",
        healthy=False, fams=("vanish",), fault="Vanishing gradient: CIFAR-10 CNN with 8 sigmoid conv layers",
        dataset_label="GradientVanish (code/GradientVanish/case16-cnn.py)", basis=AT_DEV_BASIS, model="cnn-cifar10"),
    run("at-dev-case16-lstm", AT, AT_DEV, "DL_tools/log/case16_LSTM_tmp/case16_LSTM.csv",
        healthy=False, fams=("vanish",), fault="Vanishing gradient: IMDB LSTM (case16-rnn-imdb.py)",
        dataset_label="GradientVanish (code/GradientVanish/case16-rnn-imdb.py)", basis=AT_DEV_BASIS, model="lstm-imdb"),
    run("at-dev-case20", AT, AT_DEV, "DL_tools/log/case20/case20.csv",
        healthy=False, fams=("unstable",), fault="Training unstable: SGD lr 0.01 momentum 0.9 MLP",
        dataset_label="TrainingUnstable (code/TrainingUnstable/case20.py)", basis=AT_DEV_BASIS, model="mlp"),
    run("at-dev-case20-cnn", AT, AT_DEV, "DL_tools/log/case20_cnn/case20_cnn.csv",
        healthy=False, fams=("unstable",), fault="Training unstable: CIFAR-10 CNN, SGD lr 0.01 momentum 0.9",
        dataset_label="TrainingUnstable (code/TrainingUnstable/case20-cnn.py)", basis=AT_DEV_BASIS, model="cnn-cifar10"),
    run("at-dev-case26", AT, AT_DEV, "DL_tools/log/case26/case26.csv",
        healthy=False, fams=("explode",), fault="Exploding gradient: exponential activations in a small MLP",
        dataset_label="GradientExplode (code/GradientExplode/case26.py)", basis=AT_DEV_BASIS, model="mlp"),
    run("at-dev-case26-tmp", AT, AT_DEV, "DL_tools/log/case26_tmp/case26_tmp.csv",
        healthy=False, fams=("explode",), fault="Exploding gradient: exponential activations (case26.py writes "
        "case26_tmp)", dataset_label="GradientExplode (code/GradientExplode/case26.py)", basis=AT_DEV_BASIS,
        model="mlp"),
    run("at-dev-lenet-adam", AT, AT_DEV, "DL_tools/log/lenet_tmp/Adam/lenet_tmp.csv",
        healthy=True, fault="healthy control: LeNet + Adam on MNIST (a tmp_test reference run)",
        dataset_label="(none: reference run in DL_tools/log/lenet_tmp)", basis="no fault label in the source; "
        "labelled healthy by reading the curve (val accuracy 0.96 -> 0.98 on MNIST in 30 epochs)", model="cnn-mnist"),
    run("at-dev-simple-lenet-adam", AT, AT_DEV, "DL_tools/log/simple_lenet_tmp/Adam/simple_lenet_tmp.csv",
        healthy=True, fault="healthy control: small LeNet + Adam on MNIST (a tmp_test reference run)",
        dataset_label="(none: reference run in DL_tools/log/simple_lenet_tmp)", basis="no fault label in the "
        "source; labelled healthy by reading the curve (val accuracy 0.97 -> 0.99 on MNIST in 30 epochs)",
        model="cnn-mnist"),
    # ---- DeepDiagnosis ICSE'22 replication package
    run("dd-mnist-99fe3625", DD, DD_C, "MNIST_Normal/double_random_99fe3625-3c58-4766-968e-7d40401237fe/tmp/log_dir/log.csv",
        healthy=False, fams=(), extra=("S-plateau", "S-lr-too-high", "O25", "O22"),
        fault="MNIST model (RMSprop) stuck at chance for 100 epochs; DeepDiagnosis: numerical problem in the "
        "forward pass at layer 4, fix the learning rate", dataset_label="DeepDiagnosis: 'Batch 0 layer 4: Numerical "
        "Problem Forward' -> 'Learning Rate' (AUTOTRAINER split: normal)", basis="DeepDiagnosis README: 'detected "
        "by DeepDiagnosis and the accuracy = 20%'; DeepDiagnosis Result/MNIST_Result.txt", model="mlp-mnist"),
    run("dd-so-31880720", DD, DD_C, "MOTIVATING EXAMPLE/31880720/demo_case/Gradient_Vanish_Case/tmp/log_dir/log.csv",
        healthy=False, fams=(), extra=("O1", "O12", "O13"),
        fault="StackOverflow 31880720: softmax on a single output unit with binary cross-entropy (the prediction "
        "is always 1); AUTOTRAINER reports dying ReLU and fails to repair", dataset_label="DeepLocalize benchmark "
        "31880720 (fix: Dense(1, activation='sigmoid')); AUTOTRAINER issue ['relu'], 'Unsolved'",
        basis="DeepDiagnosis motivating example; ground truth from the DeepLocalize benchmark's buggy/correct pair",
        model="mlp", notes="one epoch logged"),
]

DD_NORMAL = [
    ("Blob_normal", "config_random_a8640f1a-e6b7-45d8-8b90-921d3f7e40bf", "mlp-blob"),
    ("Blob_normal", "double_random_54f7ba3b-6a1a-4dff-b1ed-491cc3dc87b4", "mlp-blob"),
    ("Blob_normal", "double_random_a4d82733-46cc-45b1-815d-b33ca2111281", "mlp-blob"),
    ("Blob_normal", "model_random_953b07b0-9126-4363-8613-2426e4224dc4", "mlp-blob"),
    ("Circle", "config_random_b060fc17-d853-474c-9f2f-526a3772743c", "mlp-circle"),
    ("Circle", "model_random_0db8c740-c4e4-478a-be86-eec69fe6023e", "mlp-circle"),
    ("Circle", "model_random_41e9f616-8ad0-4e61-a40a-23206c764509", "mlp-circle"),
    ("Circle", "model_random_46edd947-9d92-4700-ae06-58154c944d5e", "mlp-circle"),
    ("Circle", "model_random_5057d0d1-e95c-4790-bb2d-d026aad4d8c6", "mlp-circle"),
    ("Circle", "model_random_84b9e92c-7bd5-475a-98af-02199dacefa7", "mlp-circle"),
    ("Circle", "model_random_88f274c5-c63f-4562-a2be-499b74b67ff7", "mlp-circle"),
    ("Circle", "model_random_9a5b1683-667f-4399-87f4-661723016a61", "mlp-circle"),
    ("Circle", "model_random_c06b132f-fb90-43d8-9b20-c538ce7b6074", "mlp-circle"),
    ("Circle", "model_random_fcaf2479-4acc-4ff2-a9ad-53f48017d2fe", "mlp-circle"),
]
# left out: Blob_normal/config_random_22eb8478-2f48-45e5-8657-c29d7a9a9765 -- split 'normal', but its log sits
# at accuracy 0.357 on 3-class data for all 126 epochs; the dataset label contradicts the log (see README)
for folder, model_id, model in DD_NORMAL:
    RUNS.append(run(f"dd-normal-{folder.split('_')[0].lower()}-{model_id.split('_')[0]}-{model_id.split('_')[-1][:8]}",
                    DD, DD_C, f"difference threshold/{folder}/{model_id}/tmp/log_dir/log.csv",
                    healthy=True, fault="healthy control: AUTOTRAINER dataset 'normal' model",
                    dataset_label=f"normal ({folder.split('_')[0]}/normal/{model_id})", basis=DD_NORMAL_BASIS,
                    model=model))

# ---- DeepFD ICSE'22: the two subjects the repository ships with runtime logs
FD_BASIS = ("DeepFD Benchmark/Benchmark-with-patches.xlsx column Ground_Truth for the StackOverflow post; "
            "the subject folder's lb_* columns in Benchmark/Subjects/summary.csv")
RUNS.append(run("fd-so-31556268", FD, FD_C,
                "Benchmark/Subjects/31556268/loss_mse__epoch_50000__lr_0.1/iter_1/log_dir/log.csv",
                healthy=False, fams=("slow",), extra=("PB-mse-on-logits",),
                fault="StackOverflow 31556268: MSE loss for classification, too few epochs, learning rate and "
                "optimizer settings (patch: lr 0.05 -> 0.1, epochs 1000 -> 10000)",
                dataset_label="(1) Loss (2) Epoch (3) Learning rate (4) Optimizer", basis=FD_BASIS, model="mlp",
                notes="iter_1..iter_10 are byte-identical; one kept"))
for it in (1, 2, 3):
    RUNS.append(run(f"fd-so-59282996-iter{it}", FD, FD_C, f"Benchmark/Subjects/59282996/epoch_30/iter_{it}/log_dir/log.csv",
                    healthy=False, fams=("slow",), extra=("O14",),
                    fault="StackOverflow 59282996: too few epochs, labels 1/2 not remapped to 0/1, 3 sigmoid "
                    "outputs for 2 classes (patch: remap labels, Dense(2), epoch 10 -> 30)",
                    dataset_label="(1) Epoch (2) Training Data Quality (3) Layer Properties", basis=FD_BASIS,
                    model="lstm", notes="iter_1..iter_10 are ten repeats of one program; three kept"))


def git_show(mirrors: Path, repo: str, commit: str, path: str) -> str:
    gitdir = mirrors / repo.replace("/", "+") / "repo"
    if not gitdir.is_dir():
        raise SystemExit(f"no mirror of {repo} at {gitdir} (fetch github:{repo} first)")
    out = subprocess.run(["git", "--git-dir", str(gitdir), "show", f"{commit}:{path}"],
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{repo}@{commit[:8]}:{path}: {out.stderr.strip()}")
    return out.stdout


def conflict_side(text: str, side: str) -> str:
    """One side of a file committed with unresolved merge-conflict markers: the lines outside the
    conflict (the CSV header) plus the lines of the chosen side."""
    keep, state = [], "both"
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<< "):
            state = "ours"
        elif line.startswith("=======") and state == "ours":
            state = "theirs"
        elif line.startswith(">>>>>>> ") and state == "theirs":
            state = "both"
        elif state == "both" or state == side:
            keep.append(line)
    return "".join(keep)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", default="/work/.mirror", help="folder of bare mirrors owner+name/repo")
    ap.add_argument("--out", default=str(HERE / "runs"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for r in RUNS:
        text = git_show(Path(args.mirrors), r["repo"], r["commit"], r["path"])
        if r["transform"]:
            text = conflict_side(text, r["transform"].split("-")[1])
        rows = [ln for ln in text.splitlines() if ln.strip()]
        if len(rows) < 2 or any(ln.startswith(("<<<<<<<", "=======", ">>>>>>>")) for ln in rows):
            raise SystemExit(f"{r['id']}: unexpected content after extraction")
        d = out / r["id"]
        d.mkdir()
        (d / "log.csv").write_text(text)
        label = {
            "healthy": r["healthy"], "causes": r["causes"], "fault": r["fault"], "format": "keras_csv",
            "model": r["model"],
            "source": {"repository": r["repo"], "path": r["path"], "commit": r["commit"],
                       "transform": r["transform"], "dataset_label": r["dataset_label"], "label_basis": r["basis"]},
            "epochs_logged": len(rows) - 1,
        }
        if r["notes"]:
            label["notes"] = r["notes"]
        (d / "label.json").write_text(json.dumps(label, indent=2) + "\n")
    n_bad = sum(not r["healthy"] for r in RUNS)
    print(f"wrote {len(RUNS)} runs ({n_bad} faulty, {len(RUNS) - n_bad} healthy) to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
