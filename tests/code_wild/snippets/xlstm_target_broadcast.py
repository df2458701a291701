# mLSTM.py training loop lines quoted in andrewgcodes/xlstm#4: y_pred [10, 1] vs y_true [1, 1] broadcast in the loss
# (loop header and update lines added around the posted line)
for epoch in range(num_epochs):
    optimizer.zero_grad()
    loss = 0
    for t in range(seq_length):
        y_pred = model(x[t])
        y_true = y[t]
        loss += criterion(y_pred, y_true)
    loss.backward()
    optimizer.step()
