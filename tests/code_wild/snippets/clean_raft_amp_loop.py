# train.py loop quoted in princeton-vl/RAFT#104; the answer: scaler.step(optimizer) calls optimizer.step()
for i_batch, data_blob in enumerate(train_loader):
    optimizer.zero_grad()
    image1, image2, flow, valid = [x.cuda() for x in data_blob]

    flow_predictions = model(image1, image2, iters=args.iters)

    loss, metrics = sequence_loss(flow_predictions, flow, valid, args.gamma)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)

    scaler.step(optimizer)
    scheduler.step()
    scaler.update()
