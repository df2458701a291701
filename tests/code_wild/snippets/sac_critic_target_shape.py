# sacwalker.py critic update as quoted in sunwuzhou03/reinforcement-learning-lab#1:
# critic output [64, 1] against a td_target of [64, 4] (log_prob not reduced over the action dims); fixed by the author
import torch
import torch.nn.functional as F


def update(self, transition_dict):
    states = torch.tensor(transition_dict['states'], dtype=torch.float).to(self.device)
    actions = torch.tensor(transition_dict['actions'], dtype=torch.float).to(self.device)
    td_target = self.calc_target(rewards, next_states, dones)
    critic_1_loss = torch.mean(
        F.mse_loss(self.critic_1(states, actions), td_target.detach()))
    self.critic_1_optimizer.zero_grad()
    critic_1_loss.backward()
    self.critic_1_optimizer.step()
