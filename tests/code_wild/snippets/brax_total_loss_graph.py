# loop quoted in google/brax#152 (from the PyTorch FAQ it cites): total_loss keeps every step's graph
total_loss = 0
for i in range(10000):
    optimizer.zero_grad()
    output = model(input)
    loss = criterion(output)
    loss.backward()
    optimizer.step()
    total_loss += loss
