# the loop posted in milesial/Pytorch-UNet#378 (answer: order relative to the forward does not matter)
# (loop header added; the body is as posted)
for images, masks in train_loader:
    optimizer.zero_grad()
    outputs = model(images)
    predicted = outputs.round()
    loss = criterion(outputs, masks)
    loss.backward()
    optimizer.step()
