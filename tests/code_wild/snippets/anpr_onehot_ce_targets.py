# as posted in pytorch/pytorch#1258: one-hot (4x253 DoubleTensor) targets handed to nn.CrossEntropyLoss
import torch.nn as nn

criterion=nn.CrossEntropyLoss()
output = model(inputs)
loss=criterion(output,targets)
