# train.py criterion choice quoted in milesial/Pytorch-UNet#176 (answer: logits go to the loss, sigmoid at predict)
import torch.nn as nn
import torch.optim as optim

optimizer = optim.RMSprop(net.parameters(), lr=lr, weight_decay=1e-8, momentum=0.9)
if net.n_classes > 1:
    criterion = nn.CrossEntropyLoss()
else:
    criterion = nn.BCEWithLogitsLoss()

for epoch in range(epochs):
    net.train()
    for batch in train_loader:
        imgs = batch['image']
        true_masks = batch['mask']
        masks_pred = net(imgs)
        loss = criterion(masks_pred, true_masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
