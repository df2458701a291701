"""A notebook's code is read, never run: the bugs plain in it become findings that name their cause."""

from __future__ import annotations

import json
import textwrap

from triage.api import load_kb, scan
from triage.ingest import read_run
from triage.ingest.code import facts


def _answers(*cells: str) -> list[str]:
    found, _ = facts([textwrap.dedent(c) for c in cells])
    return [f.answer for f in found]


TORCH_LOOP = """
import torch
import torch.nn as nn
for epoch in range(5):
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
"""


def test_a_model_that_ends_in_softmax_before_cross_entropy():
    model = """
    class Net(nn.Module):
        def forward(self, x):
            x = self.fc(x)
            return torch.softmax(x, dim=1)
    criterion = nn.CrossEntropyLoss()
    """
    assert _answers(model, TORCH_LOOP) == ["softmax-ce"]


def test_a_softmax_passed_to_the_loss_through_a_name():
    tf1 = """
    import tensorflow as tf
    probs = tf.nn.softmax(tf.matmul(x, W) + b)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=probs))
    """
    assert _answers(tf1) == ["softmax-ce"]
    assert _answers("import torch.nn.functional as F\nloss = F.cross_entropy(F.softmax(out, 1), y)\n") == ["softmax-ce"]


def test_log_softmax_before_cross_entropy_is_not_a_bug():
    # log_softmax is idempotent under log_softmax: the loss is the same, nothing to report
    model = """
    class Net(nn.Module):
        def forward(self, x):
            return F.log_softmax(self.fc(x), dim=1)
    criterion = nn.CrossEntropyLoss()
    """
    assert _answers(model, TORCH_LOOP) == []


def test_only_when_every_model_ends_in_softmax():
    # a notebook that tries a softmax head, then a logits head: which one met the loss is not known
    two = """
    first = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))
    second = nn.Sequential(nn.Linear(4, 3))
    loss_fn = nn.CrossEntropyLoss()
    """
    assert _answers(two, TORCH_LOOP) == []
    assert _answers(two.replace("nn.Sequential(nn.Linear(4, 3))", "nn.Sequential(nn.Linear(4, 3), nn.Softmax(1))"),
                    TORCH_LOOP) == ["softmax-ce"]


def test_keras_softmax_layer_with_logits_loss_but_not_with_the_plain_one():
    layers = "import tensorflow as tf\nmodel = tf.keras.Sequential([Dense(64, activation='relu'), Dense(10, activation='softmax')])\n"
    bad = "model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=['accuracy'])\n"
    good = "model.compile(loss='sparse_categorical_crossentropy', metrics=['accuracy'])\n"
    assert _answers(layers, bad) == ["softmax-ce"]
    assert _answers(layers, good) == []


def test_nll_loss_without_any_log_softmax():
    assert _answers("criterion = nn.NLLLoss()\n", TORCH_LOOP) == ["logits-nll"]
    assert _answers("criterion = nn.NLLLoss()\nout = F.log_softmax(z, dim=-1)\n", TORCH_LOOP) == []
    assert _answers("criterion = nn.NLLLoss()\nself.act = nn.LogSoftmax(dim=1)\n", TORCH_LOOP) == []


def test_a_torch_loop_that_never_clears_gradients():
    loop = TORCH_LOOP.replace("        opt.zero_grad()\n", "")
    assert _answers(loop) == ["loop-order"]
    assert _answers(TORCH_LOOP) == []
    # setting .grad to None clears them too; Gluon overwrites gradients by default
    assert _answers(loop + "for p in model.parameters():\n    p.grad = None\n") == []
    gluon = "import mxnet\nfor x, y in data:\n    with autograd.record():\n        l = loss(net(x), y)\n    l.backward()\n    trainer.step(64)\n"
    assert _answers(gluon) == []


def test_accuracy_on_a_regression_loss():
    cell = "model.compile(loss='mse', optimizer='adam', metrics=['accuracy'])\n"
    assert _answers(cell) == ["metric-mismatch"]
    assert _answers(cell.replace("'accuracy'", "'mae'")) == []


def test_cells_that_do_not_parse_are_counted_and_magics_are_blanked():
    found, skipped = facts(["!pip install torch\n%matplotlib inline\ncriterion = nn.NLLLoss()\n", "print 'python 2'\n",
                            TORCH_LOOP, "x = (" * 400 + ")" * 400])
    assert [f.answer for f in found] == ["logits-nll"]
    assert skipped == 2
    assert found[0].cell == 1 and found[0].line == 3 and found[0].text == "criterion = nn.NLLLoss()"


def _notebook(tmp_path, code: list[str], printed: list[str]):
    cells = [{"cell_type": "code", "execution_count": i, "metadata": {}, "source": src.splitlines(keepends=True),
              "outputs": []} for i, src in enumerate(code, 1)]
    cells[-1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": [line + "\n" for line in printed]}]
    p = tmp_path / "train.ipynb"
    p.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 2}), encoding="utf-8")
    return p


def test_scan_names_the_double_softmax_from_the_code_of_a_notebook(tmp_path):
    model = textwrap.dedent("""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def forward(self, x):
                out = self.fc(x)
                return nn.Softmax(dim=1)(out)
        criterion = nn.CrossEntropyLoss()
        """)
    printed = [f"epoch {e} loss {1.9 - 0.02 * e:.4f} acc {0.5 + 0.01 * e:.3f}" for e in range(12)]
    path = _notebook(tmp_path, [model, TORCH_LOOP], printed)
    run = read_run(path)
    assert [f["answer"] for f in run.meta["code_facts"]] == ["softmax-ce"]
    report = scan(str(path), load_kb())
    found = [f for f in report.findings if f.detector == "code-softmax-ce"]
    assert found and found[0].symptom == "Q-code-finding" and "cell 1, line 7" in found[0].summary
    assert not report.healthy
    assert report.causes[0].id == "O12"


def test_a_notebook_with_clean_code_has_no_code_finding(tmp_path):
    model = "import torch\nimport torch.nn as nn\nmodel = nn.Sequential(nn.Linear(4, 3))\ncriterion = nn.CrossEntropyLoss()\n"
    printed = [f"epoch {e} loss {1.1 * 0.8 ** e:.4f} acc {min(0.95, 0.4 + 0.06 * e):.3f}" for e in range(12)]
    path = _notebook(tmp_path, [model, TORCH_LOOP], printed)
    assert "code_facts" not in read_run(path).meta
    assert not [f for f in scan(str(path), load_kb()).findings if f.detector.startswith("code-")]


def test_eval_inside_the_training_loop_and_train_never_called():
    loop = TORCH_LOOP + "    model.eval()\n    validate(model)\n"
    assert _answers(loop) == ["train-eval-mode"]
    assert _answers(loop + "    model.train()\n") == []
    # eval() after training ends is not a bug
    assert _answers(TORCH_LOOP + "model.eval()\n") == []


def test_keras_cross_entropy_on_a_last_layer_with_no_activation():
    seq = "import tensorflow as tf\nm = tf.keras.Sequential([tf.keras.layers.Dense(16, activation='relu'), tf.keras.layers.Dense(1)])\n"
    assert _answers(seq, "m.compile(loss='binary_crossentropy', optimizer='adam')\n") == ["probs-expected"]
    assert _answers(seq, "m.compile(loss=tf.keras.losses.BinaryCrossentropy(), optimizer='sgd')\n") == ["probs-expected"]
    assert _answers(seq, "m.compile(loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))\n") == []
    assert _answers(seq.replace("Dense(1)", "Dense(1, activation='sigmoid')"), "m.compile(loss='binary_crossentropy')\n") == []
    # layers added one by one: the last add decides
    added = "m = Sequential()\nm.add(Dense(8))\nm.add(Activation('softmax'))\nm.compile(loss='categorical_crossentropy')\n"
    assert _answers(added) == []
    assert _answers(added.replace("m.add(Activation('softmax'))\n", "")) == ["probs-expected"]
    # a functional model's output is not followed
    assert _answers("out = Dense(1)(x)\nmodel = Model(inp, out)\nmodel.compile(loss='binary_crossentropy')\n") == []


def test_a_script_beside_a_log_is_read_for_bugs_never_run(tmp_path):
    run_dir = tmp_path / "run1"
    run_dir.mkdir()
    # a script that would fail loudly if it were ever executed
    (run_dir / "train.py").write_text("raise SystemExit('executed')\n" + textwrap.dedent("""
        import torch
        import torch.nn as nn
        criterion = nn.NLLLoss()
        """) + TORCH_LOOP, encoding="utf-8")
    log = run_dir / "train.log"
    log.write_text("".join(f"epoch {e} loss {2.3 - 0.05 * e:.4f} acc {0.1 + 0.02 * e:.3f}\n" for e in range(12)),
                   encoding="utf-8")
    report = scan(str(log), load_kb())
    found = [f for f in report.findings if f.detector == "code-logits-nll"]
    assert found and "train.py line 5" in found[0].summary
    assert any("train.py" in w for w in report.warnings)


def test_a_code_base_beside_a_log_is_left_unread(tmp_path):
    for i in range(9):
        (tmp_path / f"mod{i}.py").write_text("criterion = nn.NLLLoss()\n" + TORCH_LOOP, encoding="utf-8")
    log = tmp_path / "train.log"
    log.write_text("".join(f"step {s} loss {2.0 - 0.01 * s:.3f}\n" for s in range(20)), encoding="utf-8")
    report = scan(str(log), load_kb())
    assert not [f for f in report.findings if f.detector.startswith("code-")]
    assert any("not checked for bugs" in w for w in report.warnings)


def test_a_script_given_alone_is_read_as_code(tmp_path):
    """`triage scan train.py`: the script (and its folder's) read for bugs, never run; the source is
    `python-code`; a clean script is "nothing read" (exit 3) with a sentence that says why."""
    import pytest

    from triage.api import NothingRead

    (tmp_path / "train.py").write_text("raise SystemExit('executed')\nimport torch.nn as nn\ncriterion = nn.NLLLoss()\n"
                                       + TORCH_LOOP, encoding="utf-8")
    report = scan(str(tmp_path / "train.py"), load_kb())
    assert [f.detector for f in report.findings if f.detector.startswith("code-")] == ["code-logits-nll"]
    assert report.to_json()["sources"][0]["format"] == "python-code"
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "ok.py").write_text("import torch\nprint(torch.__version__)\n", encoding="utf-8")
    with pytest.raises(NothingRead, match="a Python script: read as code"):
        scan(str(clean / "ok.py"), load_kb())


def _loop(body: str) -> str:
    return "import torch\nfor epoch in range(3):\n    for x, y in loader:\n" + textwrap.indent(textwrap.dedent(body), " " * 8)


def test_the_order_of_an_update_within_one_pass():
    # gradients cleared between backward and the step that should use them
    assert _answers(_loop("""
        loss = criterion(model(x), y)
        loss.backward()
        opt.zero_grad()
        opt.step()
        """)) == ["loop-order"]
    # a clip before backward clips last pass's gradients; a step before backward applies them
    assert _answers(_loop("""
        opt.zero_grad()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        """)) == ["loop-order"]
    assert _answers(_loop("""
        opt.zero_grad()
        opt.step()
        loss = criterion(model(x), y)
        loss.backward()
        """)) == ["loop-order"]


def test_ordinary_updates_are_not_reported():
    # the usual order; accumulation (clear after the step); a GAN's two passes; AMP with unscale and clip;
    # a scheduler stepped first; LBFGS' step(closure)
    assert _answers(TORCH_LOOP) == []
    assert _answers(_loop("""
        loss = criterion(model(x), y) / 4
        loss.backward()
        if (i + 1) % 4 == 0:
            opt.step()
            opt.zero_grad()
        """)) == []
    assert _answers(_loop("""
        opt_d.zero_grad()
        loss_d = d_loss(D(x), D(G(z).detach()))
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        loss_g = g_loss(D(G(z)))
        loss_g.backward()
        opt_g.step()
        """)) == []
    assert _answers(_loop("""
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss_fn(model(x), y)).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        """)) == []
    assert _answers(_loop("""
        scheduler.step()
        def closure():
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            return loss
        opt.step(closure)
        """)) == []
    # accumulation written the other way round: every k-th pass steps with what the passes before it gathered
    assert _answers(_loop("""
        if i % 4 == 0 and i > 0:
            opt.step()
            opt.zero_grad()
        loss = criterion(model(x), y) / 4
        loss.backward()
        """)) == []


def test_a_loss_rebuilt_off_the_graph_and_dropout_forced_on():
    assert _answers(_loop("""
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss = torch.tensor(loss.item(), requires_grad=True)
        loss.backward()
        opt.step()
        """)) == ["detached-loss"]
    assert _answers("""
        import torch.nn.functional as F
        class Net(torch.nn.Module):
            def forward(self, x):
                return self.out(F.dropout(self.hidden(x), 0.5, training=True))
        """) == ["train-eval-mode"]
    assert _answers("""
        import torch.nn.functional as F
        class Net(torch.nn.Module):
            def forward(self, x):
                return self.out(F.dropout(self.hidden(x), 0.5, training=self.training))
        """) == []


def test_an_optimizer_over_a_model_built_again():
    """The optimizer built once, the model re-created per fold and trained with it: its steps move the old
    model's tensors. Built again over the new model, or the new model only evaluated: not reported."""
    head = "import torch\nmodel = Net()\nopt = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
    assert _answers(head + "for fold in range(5):\n    model = Net()\n    train(model, opt, loader)\n") \
        == ["optimizer-params"]
    assert _answers(head + "for fold in range(5):\n    model = Net()\n"
                    "    opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n    train(model, opt, loader)\n") == []
    assert _answers(head + "train(model, opt, loader)\nmodel = Net()\nmodel.load_state_dict(torch.load('best.pt'))\n"
                    "evaluate(model)\n") == []
    # a function's own model is another scope than the module's
    assert _answers(head + "def check():\n    model = Net()\n    return model(x)\ntrain(model, opt, loader)\n") == []


def test_two_bugs_in_one_script_each_support_their_own_cause(tmp_path):
    """Both findings answer "What did you find in the code?": each cause rests on the finding whose answer it
    names, and the view of a script read alone shows no share of a differential (there is no run to weigh)."""
    from typer.testing import CliRunner

    from triage.cli import app

    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import torch, torch.nn as nn
        model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4), nn.Softmax(dim=1))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        crit = nn.CrossEntropyLoss()
        for epoch in range(10):
            for x, y in loader:
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
        """), encoding="utf-8")
    report = scan(str(script), load_kb())
    found = {f.detector: i for i, f in enumerate(report.findings)}
    by_cause = {c.id: c.findings() for c in report.causes}
    assert by_cause["O12"] == [found["code-softmax-ce"]] and by_cause["O4"] == [found["code-loop-order"]]
    out = CliRunner().invoke(app, ["scan", str(script)], env={"COLUMNS": "200", "NO_COLOR": "1"}).output
    assert "Causes the code points to" in out and "%" not in out.split("Causes the code points to")[1]
    assert "give the run's log" in out


# ---- rules added from real threads (tests/code_wild) ----

def test_softmax_reaching_cross_entropy_through_a_reshape():
    cell = """
    import torch.nn.functional as F
    def forward(self, idx, targets):
        scores = self.head(self.embed(idx))
        probs = F.softmax(scores, dim=-1)
        return F.cross_entropy(probs.view(-1, self.vocab), targets.view(-1))
    """
    assert _answers(cell) == ["softmax-ce"]


def test_a_head_layer_that_ends_in_softmax_is_the_model_output():
    cell = """
    import torch.nn as nn
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
            self.head = nn.Sequential(nn.Linear(8, 3), nn.Softmax(dim=-1))
        def forward(self, x):
            return self.head(self.body(x))
    criterion = nn.CrossEntropyLoss()
    """
    assert _answers(cell, TORCH_LOOP) == ["softmax-ce"]


def test_the_trained_model_ends_in_softmax_among_other_module_classes():
    cell = """
    import torch, torch.nn as nn
    class Encoder(nn.Module):
        def forward(self, x):
            return self.net(x)
    class Classifier(nn.Module):
        def forward(self, x):
            return torch.softmax(self.fc(self.enc(x)), dim=1)
    clf = Classifier()
    opt = torch.optim.Adam(clf.parameters())
    criterion = nn.CrossEntropyLoss()
    """
    assert _answers(cell) == ["softmax-ce"]


def test_trained_model_rule_needs_cross_entropy_to_be_the_only_loss():
    cell = """
    import torch, torch.nn as nn
    class Encoder(nn.Module):
        def forward(self, x):
            return self.net(x)
    class Teacher(nn.Module):
        def forward(self, x):
            return torch.softmax(self.fc(x), dim=1)
    t = Teacher()
    opt = torch.optim.Adam(t.parameters())
    ce, kl = nn.CrossEntropyLoss(), nn.KLDivLoss()
    """
    assert _answers(cell) == []


def test_softmax_element_of_a_tuple_output_into_cross_entropy():
    cell = """
    import torch, torch.nn as nn
    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.real = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())
            self.cls = nn.Sequential(nn.Linear(4, 10), nn.Softmax())
        def forward(self, x):
            return self.real(x), self.cls(x)
    class Maker(nn.Module):
        def forward(self, z):
            return torch.tanh(self.fc(z))
    critic = Critic()
    bce = nn.BCELoss()
    aux = nn.CrossEntropyLoss()
    for x, y in loader:
        opt.zero_grad()
        real, cls = critic(x)
        loss = bce(real, ones) + aux(cls, y)
        loss.backward()
        opt.step()
    """
    assert _answers(cell) == ["softmax-ce"]


def test_a_second_optimizer_whose_gradients_are_never_cleared():
    cell = """
    import torch
    opt_g = torch.optim.Adam(gen.parameters())
    opt_d = torch.optim.Adam(disc.net.parameters())
    for x in loader:
        d_loss = disc_loss(disc.net(x), disc.net(gen(z).detach()))
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = gen_loss(disc.net(gen(z)))
        g_loss.backward()
        opt_g.step()
    """
    assert _answers(cell) == ["loop-order"]


def test_gradients_cleared_through_the_model_count_for_its_optimizer():
    cell = """
    import torch
    opt_g = torch.optim.Adam(gen.parameters())
    opt_d = torch.optim.Adam(disc.parameters())
    for x in loader:
        disc.zero_grad()
        disc_loss(disc(x)).backward()
        opt_d.step()
        opt_g.zero_grad()
        gen_loss(disc(gen(z))).backward()
        opt_g.step()
    """
    assert _answers(cell) == []


def test_gradients_cleared_once_before_the_loop():
    cell = """
    import torch
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    opt.zero_grad()
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
    """
    assert _answers(cell) == ["loop-order"]


def test_gradients_cleared_in_a_step_function_called_from_the_loop():
    cell = """
    import torch
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    def train_step(x, y):
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
    opt.zero_grad()
    for x, y in loader:
        train_step(x, y)
    """
    assert _answers(cell) == []


def test_requires_grad_forced_on_the_loss():
    cell = """
    import torch
    for x, y in loader:
        loss = criterion(head(x).argmax(1).float(), y)
        loss.requires_grad = True
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    assert _answers(cell) == ["detached-loss"]


def test_requires_grad_on_an_input_for_a_gradient_penalty_is_not_a_finding():
    cell = """
    import torch
    for x in loader:
        x.requires_grad_(True)
        score = critic(x)
        grad = torch.autograd.grad(score.sum(), x, create_graph=True)[0]
        loss = score.mean() + ((grad.norm(2, dim=1) - 1) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    assert _answers(cell) == []


def test_a_loss_summed_from_python_numbers():
    cell = """
    import torch
    import torch.nn.functional as F
    total = 0
    opt.zero_grad()
    for step in range(n):
        logp = F.log_softmax(policy(state), dim=1)
        total -= logp[0, action].item() * reward
    total = total / n
    total.backward()
    opt.step()
    """
    assert _answers(cell) == ["detached-loss"]


def test_a_running_total_of_the_loss_tensor_keeps_the_graphs():
    cell = """
    import torch
    running = 0
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        running += loss
    """
    assert _answers(cell) == ["eval-graph"]


def test_summing_losses_to_backpropagate_them_together_is_not_a_finding():
    cell = """
    import torch
    for x, y in loader:
        opt.zero_grad()
        total = 0
        for head in heads:
            part = criterion(head(x), y)
            part.backward(retain_graph=True)
            total += part
        total.backward()
        opt.step()
    """
    assert "eval-graph" not in _answers(cell)


def test_scheduler_stepped_at_the_head_of_the_epoch():
    cell = """
    import torch
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    def train_epoch():
        for x, y in loader:
            opt.zero_grad()
            criterion(model(x), y).backward()
            opt.step()
    for epoch in range(90):
        sched.step()
        train_epoch()
    """
    assert _answers(cell) == ["scheduler-order"]


def test_scheduler_after_the_epoch_is_not_a_finding():
    cell = """
    import torch
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            criterion(model(x), y).backward()
            opt.step()
        sched.step()
    """
    assert _answers(cell) == []


def test_an_epoch_sized_step_schedule_stepped_every_batch():
    cell = """
    import torch
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=n_epochs // 3, gamma=0.1)
    for epoch in range(n_epochs):
        for x, y in loader:
            opt.zero_grad()
            criterion(model(x), y).backward()
            opt.step()
            sched.step()
    """
    assert _answers(cell) == ["scheduler-order"]


def test_an_iteration_sized_step_schedule_stepped_every_batch_is_not_a_finding():
    cell = """
    import torch
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30000, gamma=0.1)
    for epoch in range(n_epochs):
        for x, y in loader:
            opt.zero_grad()
            criterion(model(x), y).backward()
            opt.step()
            sched.step()
    """
    assert _answers(cell) == []


def test_distributed_sampler_without_set_epoch():
    cell = """
    import torch
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(10):
        for x, y in loader:
            train_step(x, y)
    """
    assert _answers(cell) == ["sampler-epoch"]
    assert _answers(cell.replace("    for epoch in range(10):\n", "    for epoch in range(10):\n        sampler.set_epoch(epoch)\n")) == []


def test_evaluation_called_from_the_training_loop_leaves_eval_mode_on():
    cell = """
    import torch
    def evaluate(model, data):
        model.eval()
        with torch.no_grad():
            return sum(criterion(model(x), y).item() for x, y in data)
    for epoch in range(10):
        for x, y in loader:
            opt.zero_grad()
            criterion(model(x), y).backward()
            opt.step()
        evaluate(model, val)
    """
    assert _answers(cell) == ["train-eval-mode"]
    assert _answers(cell.replace("    for epoch in range(10):\n", "    for epoch in range(10):\n        model.train()\n")) == []


def test_evaluation_without_no_grad():
    cell = """
    import torch
    def validate(model, data):
        model.eval()
        total = 0.0
        for x, y in data:
            out = model(x)
            total += criterion(out, y).item()
        return total
    """
    assert _answers(cell) == ["eval-graph"]
    assert _answers(cell.replace("def validate", "@torch.no_grad()\n    def validate")) == []


def test_a_sigmoid_head_into_bce_with_logits():
    cell = """
    import torch.nn as nn
    class Detector(nn.Module):
        def __init__(self):
            super().__init__()
            self.exist = nn.Sequential(nn.Linear(64, 4), nn.Sigmoid())
            self.bce = nn.BCEWithLogitsLoss()
        def forward(self, x, target):
            p = self.exist(x)
            return self.bce(p, target)
    """
    assert _answers(cell) == ["sigmoid-bce"]


def test_the_linear_part_of_a_sigmoid_head_into_bce_with_logits_is_not_a_finding():
    cell = """
    import torch.nn as nn
    class Confidence(nn.Module):
        def __init__(self):
            super().__init__()
            self.token = nn.Sequential(nn.Linear(64, 1), nn.Sigmoid())
            self.bce = nn.BCEWithLogitsLoss()
        def loss(self, x, target):
            logit = self.token[0](x)
            return self.bce(logit, target)
    """
    assert _answers(cell) == []


def test_torch_sigmoid_into_bce_with_logits():
    cell = """
    import torch
    criterion = torch.nn.BCEWithLogitsLoss()
    probs = torch.sigmoid(model(x))
    loss = criterion(probs, y)
    """
    assert _answers(cell) == ["sigmoid-bce"]


def test_gradient_accumulation_without_dividing_the_loss():
    cell = """
    import torch
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    """
    assert _answers(cell) == ["accum-unscaled"]
    divided = cell.replace("loss = criterion(model(x), y)", "loss = criterion(model(x), y) / accum_steps")
    assert _answers(divided) == []


def test_testing_under_no_grad_in_train_mode():
    cell = """
    import torch
    def test(model, loader):
        model.train()
        with torch.no_grad():
            for x in loader:
                save(model(x))
    """
    assert _answers(cell) == ["train-eval-mode"]
    assert _answers(cell.replace("model.train()", "model.eval()")) == []


def test_a_memory_only_bug_counts_beside_a_log_only_when_the_run_ran_out_of_memory(tmp_path):
    """`running += loss` keeps every pass's graph: memory, not learning. Beside a log that never ran out of memory
    it explains nothing and is no finding; beside one that did, it is; read alone, it is reported."""
    script = textwrap.dedent("""
        import torch
        running = 0
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
            running += loss
        """)
    rows = "".join(f"epoch {e} loss {2.3 * 0.8 ** e:.4f} acc {0.5 + 0.04 * e:.3f}\n" for e in range(1, 11))
    for name, tail, expect in (("ok", "", False),
                               ("oom", "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n", True)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "train.py").write_text(script, encoding="utf-8")
        (folder / "train.log").write_text(rows + tail, encoding="utf-8")
        report = scan(str(folder / "train.log"), load_kb())
        assert any(f.detector == "code-eval-graph" for f in report.findings) is expect, name
    alone = scan(str(tmp_path / "ok" / "train.py"), load_kb())
    assert [f.detector for f in alone.findings] == ["code-eval-graph"]


# ---- round c2 rules


def test_eval_inside_the_training_loop_reaches_the_next_update_without_train():
    # train() once before the epochs, evaluation at the end of each: the second epoch trains in eval mode
    code = """
    import torch
    net.train()
    for epoch in range(10):
        for xb, yb in train_dl:
            opt.zero_grad()
            lossfn(net(xb), yb).backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            score(net, valid_dl)
    """
    assert _answers(code) == ["train-eval-mode"]


def test_a_validation_method_called_mid_epoch_counts_with_its_own_eval():
    code = """
    import torch
    class Runner:
        def check(self):
            self.net.eval()
            return measure(self.net)
        def fit(self):
            self.net.train()
            for i, (xb, yb) in enumerate(self.dl):
                if i % 500 == 0:
                    self.check()
                self.opt.zero_grad()
                self.lossfn(self.net(xb), yb).backward()
                self.opt.step()
    """
    assert _answers(code) == ["train-eval-mode"]


def test_train_mode_restored_before_the_next_update_is_not_reported():
    per_epoch = """
    import torch
    for epoch in range(10):
        net.train()
        for xb, yb in train_dl:
            opt.zero_grad()
            lossfn(net(xb), yb).backward()
            opt.step()
        net.eval()
        score(net, valid_dl)
    """
    per_phase = """
    import torch
    for epoch in range(10):
        for phase in ("fit", "check"):
            if phase == "fit":
                net.train()
            else:
                net.eval()
            for xb, yb in loaders[phase]:
                out = net(xb)
                if phase == "fit":
                    opt.zero_grad()
                    lossfn(out, yb).backward()
                    opt.step()
    """
    leaving = """
    import torch
    net.train()
    for step in range(1000):
        opt.zero_grad()
        lossfn(net(x), y).backward()
        opt.step()
        if done(step):
            net.eval()
            break
    """
    assert _answers(per_epoch) == [] and _answers(per_phase) == [] and _answers(leaving) == []


def test_functional_dropout_without_training_in_a_module_stays_on_in_eval():
    code = """
    import torch.nn as nn
    import torch.nn.functional as F
    class Head(nn.Module):
        def forward(self, h):
            h = F.dropout(h, p=0.3)
            return self.out(h)
    """
    told = code.replace("p=0.3)", "p=0.3, training=self.training)")
    assert _answers(code) == ["train-eval-mode"] and _answers(told) == []


def test_a_dropout_layer_built_inside_forward_is_out_of_reach_of_eval():
    code = """
    import torch.nn as nn
    class Body(nn.Module):
        def forward(self, h):
            h = self.pool(h).flatten(1)
            h = nn.Dropout(p=0.4)(h)
            return self.fc(h)
    """
    registered = """
    import torch.nn as nn
    class Body(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(p=0.4)
        def forward(self, h):
            return self.fc(self.drop(h))
    """
    assert _answers(code) == ["train-eval-mode"] and _answers(registered) == []


def test_a_cosine_schedule_sized_in_epochs_stepped_every_batch():
    code = """
    import torch
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=n_epochs)
    for epoch in range(n_epochs):
        for xb, yb in dl:
            opt.zero_grad()
            lossfn(net(xb), yb).backward()
            opt.step()
            sched.step()
    """
    per_step = code.replace("T_max=n_epochs", "T_max=n_epochs * len(dl)").replace("n_epochs * len(dl)", "total_steps")
    assert _answers(code) == ["scheduler-order"] and _answers(per_step) == []


def test_a_softmax_handed_to_the_stored_cross_entropy_loss():
    code = """
    import torch
    class Clf(LightningModule):
        def __init__(self):
            super().__init__()
            self.lossfn = torch.nn.CrossEntropyLoss()
        def validation_step(self, batch, i):
            x, y = batch
            scores = self(x)
            scores = torch.softmax(scores, dim=1)
            return self.lossfn(scores, y)
    """
    after = code.replace("""            scores = torch.softmax(scores, dim=1)
            return self.lossfn(scores, y)""", """            loss = self.lossfn(scores, y)
            scores = torch.softmax(scores, dim=1)
            return loss""")
    assert _answers(code) == ["softmax-ce"] and _answers(after) == []


def test_an_update_path_that_only_the_other_branch_clears():
    code = """
    import torch
    for xb, yb in dl:
        if use_amp:
            opt.zero_grad()
            scaler.scale(lossfn(net(xb), yb)).backward()
            scaler.step(opt)
            scaler.update()
        else:
            lossfn(net(xb), yb).backward()
            opt.step()
    """
    both = code.replace("""        else:
            lossfn""", """        else:
            opt.zero_grad()
            lossfn""")
    hoisted = """
    import torch
    for xb, yb in dl:
        opt.zero_grad()
        if use_amp:
            scaler.scale(lossfn(net(xb), yb)).backward()
            scaler.step(opt)
            scaler.update()
        else:
            lossfn(net(xb), yb).backward()
            opt.step()
    """
    assert _answers(code) == ["loop-order"] and _answers(both) == [] and _answers(hoisted) == []


def test_an_optimizer_cleared_every_pass_but_never_stepped():
    code = """
    import torch
    opt_d = torch.optim.Adam(critic.parameters())
    opt_g = torch.optim.Adam(gen.parameters())
    def set_lr(optimizer, lr):
        for group in optimizer.param_groups:
            group["lr"] = lr
    for real in dl:
        opt_d.zero_grad()
        critic_loss(real).backward()
        opt_g.zero_grad()
        gen_loss(real).backward()
        opt_g.step()
        set_lr(opt_d, 1e-4)
    """
    stepped = code.replace("opt_g.step()", "opt_g.step()\n        opt_d.step()")
    via_scaler = code.replace("opt_g.step()", "opt_g.step()\n        scaler.step(opt_d)")
    assert _answers(code) == ["loop-order"] and _answers(stepped) == [] and _answers(via_scaler) == []
