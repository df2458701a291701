# the two orders posted in patrickloeber/pytorchTutorial#19; the answer: both clear gradients before backward
# (loop headers added; the bodies are as posted)
for images, labels in train_loader:
    outputs = model(images)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()

for images, labels in train_loader:
    outputs = model(images)
    loss = criterion(outputs, labels)
    optimizer.zero_grad()  # Here is the change
    loss.backward()
    optimizer.step()
