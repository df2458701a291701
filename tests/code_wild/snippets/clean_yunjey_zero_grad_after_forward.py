# loop body quoted in yunjey/pytorch-tutorial#238; the answer: valid as long as zero_grad precedes backward
# (loop header added; the body is as posted)
for images, labels in train_loader:
    # Forward pass
    outputs = model(images)
    loss = criterion(outputs, labels)

    # Backward and optimize
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
