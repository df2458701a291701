# train.py lines 178-180 as posted in ronghuaiyang/arcface-pytorch#56, with the update they feed
# (loop header and the three update lines added for context)
for data_input, label in trainloader:
    feature = model(data_input)
    output = metric_fc(feature, label)
    loss = criterion(output, label)
    loss.requires_grad = True
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
