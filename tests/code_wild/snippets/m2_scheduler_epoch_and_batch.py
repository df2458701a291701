# train.py train_xe (aimagelab/meshed-memory-transformer), issue #71: scheduler stepped at the start of each
# epoch (before any optimizer.step) and again after every batch
from torch.optim import Adam
from torch.optim.lr_scheduler import LambdaLR
from torch.nn import NLLLoss
import torch.nn.functional as F


class MeshedDecoder(Module):
    def forward(self, input, encoder_output, mask_encoder):
        out = self.word_emb(input) + self.pos_emb(seq)
        for i, l in enumerate(self.layers):
            out = l(out, encoder_output, mask_queries, mask_self_attention, mask_encoder)

        out = self.fc(out)
        return F.log_softmax(out, dim=-1)


def train_xe(model, dataloader, optim, text_field):
    model.train()
    scheduler.step()
    running_loss = .0
    for it, (detections, captions) in enumerate(dataloader):
        detections, captions = detections.to(device), captions.to(device)
        out = model(detections, captions)
        optim.zero_grad()
        captions_gt = captions[:, 1:].contiguous()
        out = out[:, :-1].contiguous()
        loss = loss_fn(out.view(-1, len(text_field.vocab)), captions_gt.view(-1))
        loss.backward()

        optim.step()
        this_loss = loss.item()
        running_loss += this_loss
        scheduler.step()

    loss = running_loss / len(dataloader)
    return loss


optim = Adam(model.parameters(), lr=1, betas=(0.9, 0.98))
scheduler = LambdaLR(optim, lambda_lr)
loss_fn = NLLLoss(ignore_index=text_field.vocab.stoi['<pad>'])
for e in range(start_epoch, start_epoch + 100):
    train_loss = train_xe(model, dataloader_train, optim, text_field)
