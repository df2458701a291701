# https://github.com/midas-research/man-sf-emnlp/issues/2
# --- train.py
from __future__ import division
from __future__ import print_function

import os
import glob
import time
import random
import argparse
import numpy as np
import torch
from collections import defaultdict
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
from sklearn.metrics import f1_score
from sklearn.metrics import matthews_corrcoef, confusion_matrix
from sklearn.metrics import classification_report
import pickle

from utils import load_data, accuracy
from models import GAT, SpGAT
# --- train.py
def train(epoch):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    i = np.random.randint(num_samples)
    train_text = torch.tensor(np.load(train_text_path+str(i).zfill(10)+'.npy'), dtype=torch.float32).cuda()
    train_price = torch.tensor(np.load(train_price_path+str(i).zfill(10)+'.npy'), dtype = torch.float32).cuda()
    train_label = torch.LongTensor(np.load(train_label_path+str(i).zfill(10)+'.npy')).cuda()
    output = model(train_text, train_price, adj)
    loss_train = cross_entropy(output, torch.max(train_label,1)[1])
    acc_train = accuracy(output, torch.max(train_label,1)[1])
    loss_train.backward()
    optimizer.step()

def test_dict():
    pred_dict = dict()
    with open('label_data.p', 'rb') as fp:
        true_label = pickle.load(fp)
    with open('price_feature_data.p', 'rb') as fp:
        feature_data = pickle.load(fp)
    with open('text_feature_data.p', 'rb') as fp:
        text_ft_data = pickle.load(fp)
    model.eval()
    test_acc = []
    test_loss = []
    li_pred = []
    li_true = []
    for dates in feature_data.keys():
        test_text = torch.tensor(text_ft_data[dates],dtype=torch.float32).cuda()
        test_price = torch.tensor(feature_data[dates],dtype=torch.float32).cuda()
        test_label = torch.LongTensor(true_label[dates]).cuda()
        output = model(test_text, test_price,adj)
        output = F.softmax(output, dim=1)
        pred_dict[dates] = output.cpu().detach().numpy()
        loss_test = F.nll_loss(output, torch.max(test_label,1)[0])
        acc_test = accuracy(output, torch.max(test_label,1)[1])
        a = torch.max(output,1)[1].cpu().numpy()
        b = torch.max(test_label,1)[1].cpu().numpy() 
        li_pred.append(a)
        li_true.append(b)
        test_loss.append(loss_test.item())
        test_acc.append(acc_test.item())
    iop = f1_score(np.array(li_true).reshape((-1,)),np.array(li_pred).reshape((-1,)), average='micro')
    mat = matthews_corrcoef(np.array(li_true).reshape((-1,)),np.array(li_pred).reshape((-1,)))
    print("Test set results:",
          "loss= {:.4f}".format(np.array(test_loss).mean()),
          "accuracy= {:.4f}".format(np.array(test_acc).mean()),
          "F1 score={:.4f}".format(iop),
          "MCC = {:.4f}".format(mat))
    with open('pred_dict.p', 'wb') as fp:
        pickle.dump(pred_dict, fp, protocol=pickle.HIGHEST_PROTOCOL)
    return iop, mat


model = GAT(nfeat=64, 
            nhid=args.hidden, 
            nclass=2, 
            dropout=args.dropout, 
            nheads=args.nb_heads, 
            alpha=args.alpha,
            stock_num=stock_num)
if args.cuda:
    model.cuda()
    adj = adj.cuda()
optimizer = optim.Adam(model.parameters(), 
                   lr=l_r, 
                   weight_decay=args.weight_decay)

for epoch in range(args.epochs):
    train(epoch) 
print("Optimization Finished!")
results = test_dict()
