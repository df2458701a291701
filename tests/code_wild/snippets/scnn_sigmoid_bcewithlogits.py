# model.py (harryhan618/SCNN_Pytorch) after the change described in issue #35:
# BCELoss swapped for BCEWithLogitsLoss while the exist head still ends in nn.Sigmoid()
import torch
import torch.nn as nn
import torch.nn.functional as F


class SCNN(nn.Module):
    def __init__(self, ms_ks=9, pretrained=True):
        super(SCNN, self).__init__()
        self.pretrained = pretrained
        self.net_init(ms_ks)

        self.scale_background = 0.4
        self.scale_seg = 1.0
        self.scale_exist = 0.1

        self.ce_loss = nn.CrossEntropyLoss(weight=torch.tensor([self.scale_background, 1, 1, 1, 1]))
        self.bce_loss = nn.BCEWithLogitsLoss(reduction='sum')

    def forward(self, img, seg_gt=None, exist_gt=None):
        x = self.backbone(img)
        x = self.layer1(x)
        x = self.message_passing_forward(x)
        x = self.layer2(x)

        seg_pred = F.interpolate(x, scale_factor=8, mode='bilinear', align_corners=True)
        x = self.layer3(x)
        x = x.view(-1, 4500)
        exist_pred = self.fc(x)

        if seg_gt is not None and exist_gt is not None:
            loss_seg = self.ce_loss(seg_pred, seg_gt) * self.scale_seg
            loss_exist = self.bce_loss(exist_pred, exist_gt) / img.shape[0] * self.scale_exist
            loss = loss_seg + loss_exist
        else:
            loss_seg = torch.tensor(0, dtype=img.dtype, device=img.device)
            loss_exist = torch.tensor(0, dtype=img.dtype, device=img.device)
            loss = torch.tensor(0, dtype=img.dtype, device=img.device)

        return seg_pred, exist_pred, loss_seg, loss_exist, loss

    def net_init(self, ms_ks):
        self.layer2 = nn.Sequential(
            nn.Dropout2d(0.1),
            nn.Conv2d(128, 5, 1)
        )

        self.layer3 = nn.Sequential(
            nn.Softmax(dim=1),
            nn.AvgPool2d(2, 2),
        )
        self.fc = nn.Sequential(
            nn.Linear(4500, 128),
            nn.ReLU(),
            nn.Linear(128, 4),
            nn.Sigmoid()
        )
