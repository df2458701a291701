# loop posted in rll/deepul#12 (lecture3_flow_models_demos): zero_grad after the forward is fine
model.train()
for x in train_loader:
    x = x.float()
    loss = model.nll(x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
