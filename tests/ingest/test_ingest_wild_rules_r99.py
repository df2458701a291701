"""Round r99 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def test_monitor_csv_with_a_space_after_the_hash(tmp_path):
    # OpenAI baselines' older Monitor wrote `# {json}` (SB3 writes `#{json}`), then `r,l,t` per episode
    text = '# {"t_start": 1500000000.5, "env_id": "Walker-v2"} \nr,l,t\n' + "".join(
        f"{-100.0 + 10 * i:.3f},500,{1.5 * (i + 1):.3f}\n" for i in range(6))
    run = read_text(tmp_path, text, name="0.monitor.csv")
    assert sorted(run.series) == ["episode_length", "episode_reward"]
    assert list(run.series["episode_reward"].values)[:2] == [-100.0, -90.0]
    assert list(run.series["episode_length"].steps)[:3] == [500, 1000, 1500]


def test_rl_episode_csv_column_names(tmp_path):
    # per-episode CSVs of hand-written RL loops: the mean length beside the mean reward, a bare `length`
    # beside the return, a summed `Total_Reward` beside epsilon
    run = read_text(tmp_path, "Episode,Avg length,Avg reward\n" + "".join(
        f"{100 * (i + 1)},{50 + i},{-3.0 + i}\n" for i in range(5)), name="a.csv")
    assert {"episode_length", "episode_reward"} <= set(run.series)
    run = read_text(tmp_path, "episode,return,length,value_loss\n" + "".join(
        f"{i + 1},{20.0 + i},{30 + i},{0.5 / (i + 1):.3f}\n" for i in range(5)), name="b.csv")
    assert {"episode_length", "episode_reward", "value_loss"} <= set(run.series)
    run = read_text(tmp_path, "Episode,Score,Total_Reward,Pieces,Epsilon\n" + "".join(
        f"{i},0,{-200.5 - i},{20 + i},{1.0 - 0.01 * i:.3f}\n" for i in range(5)), name="c.csv")
    assert {"episode_reward", "exploration_rate"} <= set(run.series)
    assert list(run.series["exploration_rate"].values)[:2] == [1.0, 0.99]


def test_printed_dqn_line_avg_q_is_the_value_estimate(tmp_path):
    text = "".join(f"Episode {i}, Reward: {float(i % 3)}, Avg Q: {1.5 + 0.01 * i:.2f}, Loss: {0.3 - 0.01 * i:.4f}, "
                   f"Steps: {100 + i}\n" for i in range(6))
    run = read_text(tmp_path, text)
    assert list(run.series["value_estimate"].values)[:2] == [1.5, 1.51]
    assert "loss" in run.series


def test_baselines_table_is_one_row_its_lines_said_apart(tmp_path):
    # OpenAI baselines deepq prints a `| key | value |` table every N episodes, epsilon in percent
    border = "-" * 34 + "\n"
    text = "Logging to ./logs/run\n" + "".join(
        border + f"| % time spent exploring  | {99 - i:<4} |\n| episodes                | {100 * (i + 1):<4} |\n"
        f"| mean 100 episode reward | {9.5 + i:<4} |\n| steps                   | {1000 * (i + 1):<4} |\n" + border
        for i in range(5))
    run = read_text(tmp_path, text)
    assert run.meta["rows"] == 5
    assert run.meta["joined_lines"] == 15
    assert abs(list(run.series["exploration_rate"].values)[0] - 0.99) < 1e-9
    assert list(run.series["episode_reward"].values)[-1] == 13.5


def test_module_eps_is_no_exploration_rate(tmp_path):
    # a model repr's BatchNorm `eps=1e-05` is no epsilon-greedy rate
    text = "  (bn1): BatchNorm2d(64, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n" + "".join(
        f"epoch {e} loss {1.0 - 0.1 * e:.2f}\n" for e in range(4))
    run = read_text(tmp_path, text)
    assert "exploration_rate" not in run.series


def test_short_run_then_a_run_from_the_first_epoch_again_is_appended(tmp_path):
    # Keras CSVLogger(append=True): a launch stopped after two epochs, then a full run from epoch 0 again;
    # the counter drops to the first epoch and goes on through the short run's epochs: a second run
    rows = [(0, 7.2), (1, 6.6)] + [(e, 5.9 - 0.1 * e) for e in range(8)]
    text = "epoch,accuracy,loss\n" + "".join(f"{e},0.9,{v:.2f}\n" for e, v in rows)
    run = read_text(tmp_path, text, name="history.csv")
    loss = run.series["loss"]
    assert len(loss.values) == 10
    assert list(loss.values)[:3] == [7.2, 6.6, 5.9]


def test_a_resume_that_logs_later_steps_again_stays_one_run(tmp_path):
    # the counter goes back into the run and on past where it was: a resume, not a second run
    rows = [(e, 1.0 - 0.05 * e) for e in range(6)] + [(e, 0.8 - 0.05 * e) for e in range(3, 9)]
    text = "epoch,loss\n" + "".join(f"{e},{v:.2f}\n" for e, v in rows)
    run = read_text(tmp_path, text, name="history.csv")
    assert max(run.series["loss"].steps) == 8
