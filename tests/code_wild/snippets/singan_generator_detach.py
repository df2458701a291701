# SinGAN/training.py generator steps after the change in tamarott/SinGAN#117; reviewers: netG will not update
for j in range(opt.Gsteps):
    netG.zero_grad()
    output = netD(fake.detach())
    D_fake_map = output.detach()
    errG = -output.mean()
    errG.backward(retain_graph=True)
    if alpha != 0:
        loss = nn.MSELoss()
        Z_opt = opt.noise_amp*z_opt+z_prev
        rec_loss = alpha*loss(netG(Z_opt.detach(),z_prev),real)
        rec_loss.backward(retain_graph=True)
        rec_loss = rec_loss.detach()
    else:
        Z_opt = z_opt
        rec_loss = 0

    optimizerG.step()
