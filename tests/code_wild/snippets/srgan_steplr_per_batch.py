# train.py excerpt (Lornatang/SRGAN-PyTorch), as described in issue #1
import torch
import torch.nn as nn
import torch.utils.data

dataloader = torch.utils.data.DataLoader(dataset,
                                         batch_size=args.batch_size,
                                         pin_memory=True,
                                         num_workers=int(args.workers))

netG = Generator(upscale_factor=args.upscale_factor).to(device)
netD = Discriminator().to(device)
content_criterion = nn.MSELoss().to(device)
adversarial_criterion = nn.BCELoss().to(device)

netD.train()
netG.train()

epochs = int(args.iters // len(dataloader))
optimizerD = torch.optim.Adam(netD.parameters(), lr=args.lr)
optimizerG = torch.optim.Adam(netG.parameters(), lr=args.lr)
schedulerD = torch.optim.lr_scheduler.StepLR(optimizerD, step_size=epochs // 2, gamma=0.1)
schedulerG = torch.optim.lr_scheduler.StepLR(optimizerG, step_size=epochs // 2, gamma=0.1)

for epoch in range(args.start_epoch, epochs):
    for i, (input, target) in enumerate(dataloader):
        lr = input.to(device)
        hr = target.to(device)
        batch_size = lr.size(0)
        real_label = torch.full((batch_size, 1), 1, dtype=lr.dtype, device=device)
        fake_label = torch.full((batch_size, 1), 0, dtype=lr.dtype, device=device)

        netD.zero_grad()
        sr = netG(lr)
        hr_output = netD(hr)
        errD_hr = adversarial_criterion(hr_output, real_label)
        errD_hr.backward()
        sr_output = netD(sr.detach())
        errD_sr = adversarial_criterion(sr_output, fake_label)
        errD_sr.backward()
        errD = errD_hr + errD_sr
        optimizerD.step()

        netG.zero_grad()
        mse_loss = content_criterion(sr, hr)
        vgg_loss = content_criterion(feature_extractor(sr), feature_extractor(hr))
        sr_output = netD(sr)
        adversarial_loss = adversarial_criterion(sr_output, real_label)
        errG = mse_loss + 2e-6 * vgg_loss + 1e-3 * adversarial_loss
        errG.backward()
        optimizerG.step()

        # Dynamic adjustment of learning rate
        schedulerD.step()
        schedulerG.step()
