# training/svd_runner.py around line 578 as quoted in tedlasai/learn2refocus#5: optimizer.step() is missing
for step, batch in enumerate(train_dataloader):
    with accelerator.accumulate(unet):
        model_pred = unet(noisy_latents, timesteps, encoder_hidden_states).sample
        loss = F.mse_loss(model_pred.float(), target.float(), reduction="mean")
        accelerator.backward(loss)
        lr_scheduler.step()
        optimizer.zero_grad()
