"""Reading rules for printed styles met in real training logs (round 116: lines read as no record)."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_net_output_without_the_weighted_loss_tail_is_the_same_print(tmp_path):
    """Style: a Caffe test pass over a net with several classifier heads, whose outputs are named after
    their layers (`Test net output #1: head1/top-1 = 0.131`): the solver prints the weighted-loss tail
    `(* 0.3 = 2.49 loss)` only after the outputs that enter the loss, so the line without it is the same
    print, and its name, whatever the net calls it, is a measured output as its neighbours' are."""
    lines = []
    for it, (tl, a1, a3) in enumerate([(2.1, 0.131, 0.221), (2.0, 0.142, 0.230), (1.9, 0.150, 0.241)]):
        step = 1000 + 40 * it
        lines += [
            f"I0713 00:0{it}:10.63 3223 solver.cpp:270] Iteration {step}, Testing net (#0)",
            f"I0713 00:0{it}:14.26 3223 solver.cpp:319]     Test net output #0: head1/loss1 = 8.1 (* 0.3 = 2.43 loss)",
            f"I0713 00:0{it}:14.26 3223 solver.cpp:319]     Test net output #1: head1/top-1 = {a1}",
            f"I0713 00:0{it}:14.26 3223 solver.cpp:319]     Test net output #2: head3/loss3 = 5.7 (* 1 = 5.7 loss)",
            f"I0713 00:0{it}:14.26 3223 solver.cpp:319]     Test net output #3: head3/top-1 = {a3}",
            f"I0713 00:0{it}:14.45 3223 solver.cpp:189] Iteration {step}, loss = {tl}",
            f"I0713 00:0{it}:14.45 3223 solver.cpp:204]     Train net output #0: head3/loss3 = {tl} (* 1 = {tl} loss)",
        ]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.1, 2.0, 1.9]
    got = {name: _vals(run, name) for name in run.series if name.endswith("accuracy") or "top" in name}
    assert sorted(v for vals in got.values() for v in vals) == sorted([0.131, 0.142, 0.150, 0.221, 0.230, 0.241])
    assert len(got) == 2  # one series for each head's top-1, never merged into one
    assert not any("no record" in why for why in run.meta.get("skipped") or {})


def test_numbered_loss_terms_are_losses_by_their_words(tmp_path):
    """Style: a block of one-value lines under an iteration heading, where the code numbers the terms it
    sums (`rec_loss1: 0.15`, `rec_loss2: 0.25`): a metric word with an index glued to it is that metric's
    term, read with its block like its unnumbered neighbours."""
    lines = []
    for it, (a, b, c) in enumerate([(0.41, 0.15, 0.25), (0.13, 0.06, 0.07), (0.09, 0.04, 0.05)]):
        lines += [f"== iteration {100 * it} ==", f"rec_loss: {a}", f"rec_loss1: {b}", f"rec_loss2: {c}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "rec_loss1") == [0.15, 0.06, 0.04]
    assert _vals(run, "rec_loss2") == [0.25, 0.07, 0.05]
    assert not any("no record" in why for why in run.meta.get("skipped") or {})


def test_episode_length_and_equal_error_rate_by_their_printed_names(tmp_path):
    """Style: names as scripts print them from their variables: a self-play loop's `episode_len:39` is the
    episode's length; a verification model's `EER: 18.32` after each pass is its equal error rate."""
    run = _read(tmp_path, [
        "2025-06-04 19:53:31, game i:1, episode_len:28",
        "2025-06-04 19:53:48, game i:2, episode_len:39",
        "kl:0.01113,lr_multiplier:1.000,loss:5.3159,entropy:4.3723",
        "2025-06-04 19:54:08, game i:3, episode_len:46",
        "kl:0.02387,lr_multiplier:1.000,loss:5.1880,entropy:4.3426",
    ])
    assert _vals(run, "episode_length") == [28.0, 39.0, 46.0]
    assert _vals(run, "loss") == [5.3159, 5.188]
    run = _read(tmp_path, [
        "epoch: 0", "512/512 [==============================] - 0s - loss: 0.4356", "EER: 20.47",
        "epoch: 1", "512/512 [==============================] - 0s - loss: 0.4117", "EER: 18.32",
    ])
    assert _vals(run, "eer") == [20.47, 18.32]
