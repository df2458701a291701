# release/reinforcement.py policy_gradient (isayev/ReLeaSE) with the change posted in issue #39:
# `rl_loss -= (log_probs[0, top_i].item()*discounted_reward)`; answer: this detaches rl_loss from the graph
import torch
import torch.nn.functional as F


def policy_gradient(self, data, n_batch=10, gamma=0.97, grad_clipping=None, **kwargs):
    rl_loss = 0
    self.generator.optimizer.zero_grad()
    total_reward = 0

    for _ in range(n_batch):
        reward = 0
        while reward == 0:
            trajectory = self.generator.evaluate(data)
            reward = self.get_reward(trajectory[1:-1], self.predictor, **kwargs)

        trajectory_input = data.char_tensor(trajectory)
        discounted_reward = reward
        total_reward += reward

        hidden = self.generator.init_hidden()
        stack = None

        for p in range(len(trajectory)-1):
            output, hidden, stack = self.generator(trajectory_input[p], hidden, stack)
            log_probs = F.log_softmax(output, dim=1)
            top_i = trajectory_input[p+1]
            rl_loss -= (log_probs[0, top_i].item()*discounted_reward)
            discounted_reward = discounted_reward * gamma

    rl_loss = rl_loss / n_batch
    total_reward = total_reward / n_batch
    rl_loss.backward()
    if grad_clipping is not None:
        torch.nn.utils.clip_grad_norm_(self.generator.parameters(), grad_clipping)

    self.generator.optimizer.step()

    return total_reward, rl_loss.item()
