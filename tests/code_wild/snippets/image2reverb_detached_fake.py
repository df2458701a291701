# training_step excerpt as posted in nikhilsinghmus/image2reverb#37 (maintainer: the .detach() is a bug)
import torch
import torch.nn.functional as F


def training_step(self, batch, batch_idx, optimizer_idx):
    spec, label, p = batch
    f = self.enc.forward(label)[0]
    z = torch.cat((f, torch.randn((f.shape[0], 512 if not self._opt.no_depth else 256, f.shape[2], f.shape[3]), device=self.device)), 1)
    fake_spec = self.g(z)
    if optimizer_idx == 0 or optimizer_idx == 1:
        d_fake2 = self.d(fake_spec.detach(), f)  # is .detach() here intentional?
        G_loss1 = F.mse_loss(d_fake2, torch.ones(d_fake2.shape, device=self.device))
        G_loss2 = F.l1_loss(fake_spec, spec)
        G_loss = G_loss1 + (self._opt.lambda_l1 * G_loss2)
        return G_loss
