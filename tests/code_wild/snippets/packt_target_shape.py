# cell posted in PacktPublishing/Modern-Computer-Vision-with-PyTorch#73: prediction [N,1] vs target [N]
import torch

y_train = torch.tensor([0, 1])


def train_batch(x, y, model, opt, loss_fn):
    model.train()
    prediction = model(x)
    batch_loss = loss_fn(prediction, y)
    batch_loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return batch_loss.item()
