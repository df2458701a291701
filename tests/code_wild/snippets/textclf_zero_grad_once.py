# main.py (FreedomIntelligence/TextClassificationBenchmark), line 71 per the issue
import torch
import torch.optim as optim
import models
import utils
from torch.nn.modules.loss import NLLLoss
import torch.nn as nn


class LSTMClassifier(nn.Module):
    # models/LSTM.py forward (returns the linear layer's scores)
    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        x=embeds.permute(1,0,2)
        self.hidden= self.init_hidden(sentence.size()[0])
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        y  = self.hidden2label(lstm_out[-1])
        return y

train_iter, test_iter = utils.loadData(opt)

model=models.setup(opt)
if torch.cuda.is_available():
    model.cuda()
model.train()
optimizer = optim.Adam(model.parameters(), lr=opt.learning_rate)
optimizer.zero_grad()
loss_fun = NLLLoss()

for index,batch in enumerate(train_iter):
    if index%1000==0:
        print(index)

    if len(batch.text[0]) == opt.batch_size:
        predicted = model(batch.text[0])

        loss = loss_fun(predicted,batch.label)
        loss.backward()
        utils.clip_gradient(optimizer, opt.grad_clip)
        optimizer.step()
        print("loss : %.5f" % loss.data.numpy()[0])

utils.evaluation(model,test_iter)
