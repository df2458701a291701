# network.py and main.py excerpts (clvrai/ACGAN-PyTorch), fixed by PR #4 (Softmax -> LogSoftmax for NLLLoss)
import torch
import torch.nn as nn
import torch.optim as optim


class _netD_CIFAR10(nn.Module):
    def __init__(self, ngpu, num_classes=10):
        super(_netD_CIFAR10, self).__init__()
        self.ngpu = ngpu
        self.conv1 = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(0.5, inplace=False),
        )
        self.fc_dis = nn.Linear(4*4*512, 1)
        self.fc_aux = nn.Linear(4*4*512, num_classes)
        self.softmax = nn.Softmax()
        self.sigmoid = nn.Sigmoid()

    def forward(self, input):
        conv1 = self.conv1(input)
        flat6 = conv1.view(-1, 4*4*512)
        fc_dis = self.fc_dis(flat6)
        fc_aux = self.fc_aux(flat6)
        classes = self.softmax(fc_aux)
        realfake = self.sigmoid(fc_dis).view(-1,1).squeeze(1)
        return realfake, classes


netD = _netD_CIFAR10(ngpu, nz)
dis_criterion = nn.BCELoss()
aux_criterion = nn.NLLLoss()
optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

for epoch in range(opt.niter):
    for i, data in enumerate(dataloader, 0):
        netD.zero_grad()
        real_cpu, label = data
        dis_output, aux_output = netD(input)
        dis_errD_real = dis_criterion(dis_output, dis_label)
        aux_errD_real = aux_criterion(aux_output, aux_label)
        errD_real = dis_errD_real + aux_errD_real
        errD_real.backward()
        optimizerD.step()
