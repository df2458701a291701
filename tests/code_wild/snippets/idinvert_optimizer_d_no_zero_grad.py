# training/training_loop_encoder.py (Hsintien-Ng/idinvert_pytorch-reproduced), issue #1: optimizer_D.zero_grad() missing
import torch
import torch.nn.functional as F


def GAN_loss(scores_out, real=True):
    if real:
        return torch.mean(F.softplus(-scores_out))
    else:
        return torch.mean(F.softplus(scores_out))


def training_loop(config, E_lr_args, D_lr_args, opt_args, max_epoch=50):
    optimizer_E = torch.optim.Adam(E.net.parameters(), lr=E_learning_rate, **opt_args)
    optimizer_D = torch.optim.Adam(D.net.parameters(), lr=D_learning_rate, **opt_args)

    for epoch in range(max_epoch):
        for step, items in enumerate(train_dataloader):
            E.net.train()
            x = items
            x = x.float().cuda()
            batch_size = x.shape[0]
            z = E.net(x).view(batch_size, *encode_dim)
            x_rec = G.net.synthesis(z)

            x_real = D.net(x)
            x_fake = D.net(x_rec.detach())
            loss_real = GAN_loss(x_real, real=True)
            loss_fake = GAN_loss(x_fake, real=False)
            loss_gp = div_loss_(D, x, x_rec.detach(), cuda=config.cuda)
            D_loss = loss_real_weight * loss_real + loss_fake_weight * loss_fake + loss_gp_weight * loss_gp + loss_ep_weight * (loss_real * loss_real)
            D_loss.backward()
            optimizer_D.step()

            loss_pix = torch.mean((x - x_rec) ** 2)
            loss_adv = 0.
            if loss_adv_weight:
                x_adv = D.net(x_rec)
                loss_adv = GAN_loss(x_adv, real=True)
            E_loss = loss_pix_weight * loss_pix + loss_adv_weight * loss_adv
            optimizer_E.zero_grad()
            E_loss.backward()
            optimizer_E.step()
