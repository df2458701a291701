# Model_Transformer/model.py and train.py excerpts (AnubhavGupta3377/Text-Classification-Models-Pytorch), issue #9
import torch
import torch.nn as nn
import torch.optim as optim
import numpy as np


class Transformer(nn.Module):
    def __init__(self, config, src_vocab):
        super(Transformer, self).__init__()
        self.config = config
        self.fc = nn.Linear(
            self.config.d_model,
            self.config.output_size
        )
        self.softmax = nn.Softmax()

    def forward(self, x):
        embedded_sents = self.src_embed(x.permute(1,0))
        encoded_sents = self.encoder(embedded_sents)
        final_feature_map = encoded_sents[:,-1,:]
        final_out = self.fc(final_feature_map)
        return self.softmax(final_out)

    def add_optimizer(self, optimizer):
        self.optimizer = optimizer

    def add_loss_op(self, loss_op):
        self.loss_op = loss_op

    def run_epoch(self, train_iterator, val_iterator, epoch):
        losses = []
        for i, batch in enumerate(train_iterator):
            self.optimizer.zero_grad()
            x = batch.text
            y = (batch.label - 1).type(torch.LongTensor)
            y_pred = self.__call__(x)
            loss = self.loss_op(y_pred, y)
            loss.backward()
            losses.append(loss.data.cpu().numpy())
            self.optimizer.step()


if __name__=='__main__':
    config = Config()
    model = Transformer(config, len(dataset.vocab))
    model.train()
    optimizer = optim.Adam(model.parameters(), lr=config.lr)
    NLLLoss = nn.NLLLoss()
    model.add_optimizer(optimizer)
    model.add_loss_op(NLLLoss)
    for i in range(config.max_epochs):
        train_loss,val_accuracy = model.run_epoch(dataset.train_iterator, dataset.val_iterator, i)
