"""Reading rules of round r112 (synthetic lines in the styles the wild corpus showed)."""
from triage.ingest import read_run
from triage.ingest.aliases import table


def _read(tmp_path, text: str, name: str = "log.txt"):
    p = tmp_path / name
    p.write_text(text)
    return read_run(str(p))


def test_moving_average_span_is_not_part_of_the_name():
    t = table()
    # the count of episodes a mean is taken over, trailing the name or glued to the averaging word
    assert t.resolve("Avg_Reward_100").name == "episode_reward"
    assert t.resolve("Mean Return 20").name == "episode_reward"
    assert t.resolve("Average50 Reward").name == "episode_reward"
    assert t.resolve("avg_loss_10").name == "loss"


def test_threshold_or_rank_after_a_metric_is_kept():
    t = table()
    # AP at IoU 0.5 and a top-k accuracy: the number is part of the metric, not a window
    assert t.resolve("mean_ap_50").name != "average_precision"
    assert t.resolve("avg_acc_5").name == "accuracy_top5"


def test_csv_of_windowed_episode_reward(tmp_path):
    run = _read(tmp_path, "Episode,Mean_Reward_50,Env_Steps\n50,-3.5,900\n100,-1.25,1850\n150,0.5,2790\n",
                "progress.csv")
    assert list(run.series["episode_reward"].values) == [-3.5, -1.25, 0.5]


def test_morvan_style_ep_r_is_the_episode_return(tmp_path):
    run = _read(tmp_path, "Ep: 0 | Ep_r: -412 | var: 3.00\nEp: 1 | Ep_r: -388 | var: 2.95\n"
                          "Ep: 2 | Ep_r: -301 | var: 2.90\n")
    assert list(run.series["episode_reward"].values) == [-412, -388, -301]


def test_average_score_of_an_episode_line_is_the_mean_return(tmp_path):
    # `Episode N<TAB>Average Score: x`: the mean of the last episodes' scores, its window maybe glued on
    run = _read(tmp_path, "Episode 10\tMean Score: -1.50\nEpisode 20\tMean Score: 0.25\n"
                          "Episode 30\tMean Score: 2.00\n")
    assert list(run.series["episode_reward"].values) == [-1.5, 0.25, 2.0]
    run = _read(tmp_path, "Episode 1\tSteps 12\tAverage50 Score: 12.00\nEpisode 2\tSteps 30\tAverage50 Score: 15.00\n")
    assert list(run.series["episode_reward"].values) == [12.0, 15.0]


def test_p_r_f_letters_together_are_precision_recall_f1(tmp_path):
    # NER taggers abbreviate the three scores of an evaluation: `p: .., r: .., f: ..`
    run = _read(tmp_path, "Dev: time: 3.10s; acc: 0.9100, p: 0.5000, r: 0.4000, f: 0.4444\n"
                          "Dev: time: 3.05s; acc: 0.9300, p: 0.6000, r: 0.5000, f: 0.5455\n")
    assert list(run.series["eval/precision"].values) == [0.5, 0.6]
    assert list(run.series["eval/recall"].values) == [0.4, 0.5]
    assert list(run.series["eval/f1"].values) == [0.4444, 0.5455]


def test_lone_letter_p_is_not_a_precision(tmp_path):
    run = _read(tmp_path, "iter 1 loss: 0.9 p: 0.10\niter 2 loss: 0.8 p: 0.20\n")
    assert "precision" not in run.series and "eval/precision" not in run.series


def test_total_step_counter_is_the_step(tmp_path):
    # face-recognition TF loops count iterations over all epochs as `total_step N`
    run = _read(tmp_path, "epoch 0, total_step 500, total loss is 12.50 , training accuracy is 0.010000\n"
                          "epoch 0, total_step 550, total loss is 12.25 , training accuracy is 0.020000\n"
                          "epoch 1, total_step 600, total loss is 11.75 , training accuracy is 0.030000\n")
    assert "total_step" not in run.series
    assert list(run.series["loss"].steps) == [500, 550, 600]
