# https://github.com/ivadomed/ivadomed/pull/55
# --- ivadomed/main.py
import sys
import json
import os
import time
import shutil
import random
import joblib
from math import exp
import numpy as np

import torch
import torch.nn as nn
import torch.backends.cudnn as cudnn
from torch.utils.data import DataLoader, ConcatDataset
from torchvision import transforms
import torchvision.utils as vutils
from torch import optim

from medicaltorch import transforms as mt_transforms
from medicaltorch import datasets as mt_datasets
from medicaltorch import filters as mt_filters
from medicaltorch import metrics as mt_metrics

from tensorboardX import SummaryWriter

from tqdm import tqdm

from ivadomed import loader as loader
from ivadomed import models
from ivadomed import losses
from ivadomed.utils import *

cudnn.benchmark = True


def cmd_train(context):
# --- ivadomed/main.py
    if cuda_available:
        model.cuda()

    num_epochs = context["num_epochs"]
    initial_lr = context["initial_lr"]

    # Using Adam with cosine annealing learning rate
    optimizer = optim.Adam(model.parameters(), lr=initial_lr)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, num_epochs)

    # Create dict containing gammas and betas after each FiLM layer.
    gammas_dict = {i:[] for i in range(1,9)}
    betas_dict = {i:[] for i in range(1,9)}

    # Create a list containing the contrast of all batch images
    var_contrast_list = []

    # Loss
    if context["loss"]["name"] in ["dice", "cross_entropy", "focal", "gdl", "focal_dice"]:
        if context["loss"]["name"] == "cross_entropy":
            loss_fct = nn.BCELoss()
        elif context["loss"]["name"] == "focal":
            loss_fct = losses.FocalLoss(gamma=context["loss"]["params"]["gamma"])
            print("\nLoss function: {}, with gamma={}.\n".format(context["loss"]["name"], context["loss"]["params"]["gamma"]))
        elif context["loss"]["name"] == "gdl":
            loss_fct = losses.GeneralizedDiceLoss()
        elif context["loss"]["name"] == "focal_dice":
            loss_fct = losses.FocalDiceLoss(gamma=context["loss"]["params"]["gamma"], alpha=context["loss"]["params"]["alpha"])
            print("\nLoss function: {}, with gamma={} and alpha={}.\n".format(context["loss"]["name"], context["loss"]["params"]["gamma"], context["loss"]["params"]["alpha"]))
            focal_loss_fct = losses.FocalLoss(gamma=context["loss"]["params"]["gamma"]) # for tuning alpha

        if not context["loss"]["name"].startswith("focal"):
            print("\nLoss function: {}.\n".format(context["loss"]["name"]))

    else:
        print("Unknown Loss function, please choose between 'dice', 'focal', 'focal_dice', 'gdl' or 'cross_entropy'")
        exit()

    # Training loop -----------------------------------------------------------
    best_validation_loss = float("inf")
    for epoch in tqdm(range(1, num_epochs+1), desc="Training"):
        start_time = time.time()

        lr = scheduler.get_lr()[0]
        writer.add_scalar('learning_rate', lr, epoch)

        model.train()
        train_loss_total, dice_train_loss_total, focal_train_loss_total = 0.0, 0.0, 0.0
        num_steps = 0
        for i, batch in enumerate(train_loader):
            input_samples, gt_samples = batch["input"], batch["gt"]

            # mixup data
            if mixup_bool and not film_bool:
                input_samples, gt_samples, lambda_tensor = mixup(input_samples, gt_samples, mixup_alpha)

                # if debugging and first epoch, then save samples as png in ofolder
                if context["debugging"] and epoch == 1 and random.random() < 0.1:
                    mixup_folder = os.path.join(context["log_directory"], 'mixup')
                    if not os.path.isdir(mixup_folder):
                        os.makedirs(mixup_folder)
                    random_idx = np.random.randint(0, input_samples.size()[0])
                    val_gt = np.unique(gt_samples.data.numpy()[random_idx,0,:,:])
                    mixup_fname_pref = os.path.join(mixup_folder, str(i).zfill(3)+'_'+str(lambda_tensor.data.numpy()[0])+'_'+str(random_idx).zfill(3)+'.png')
                    save_mixup_sample(input_samples.data.numpy()[random_idx, 0, :, :],
                                            gt_samples.data.numpy()[random_idx,0,:,:],
                                            mixup_fname_pref)

            # The variable sample_metadata is where the MRI physics parameters are

            if cuda_available:
                var_input = input_samples.cuda()
                var_gt = gt_samples.cuda(non_blocking=True)
            else:
                var_input = input_samples
                var_gt = gt_samples

            if film_bool:
                # var_contrast is the list of the batch sample's contrasts (eg T2w, T1w).
                sample_metadata = batch["input_metadata"]
                var_contrast = [sample_metadata[k]['contrast'] for k in range(len(sample_metadata))]

                var_metadata = [train_onehotencoder.transform([sample_metadata[k]['bids_metadata']]).tolist()[0] for k in range(len(sample_metadata))]
                preds = model(var_input, var_metadata)  # Input the metadata related to the input samples
            else:
                preds = model(var_input)

            if context["loss"]["name"] == "dice":
                loss = - losses.dice_loss(preds, var_gt)
            else:
                loss = loss_fct(preds, var_gt)
                if context["loss"]["name"] == "focal_dice":
                    focal_train_loss_total += focal_loss_fct(preds, var_gt).item()
                    dice_train_loss_total += torch.log(losses.dice_loss(preds, var_gt)).item()
                else:
                    dice_train_loss_total += losses.dice_loss(preds, var_gt).item()
            train_loss_total += loss.item()

            optimizer.zero_grad()
            loss.backward()

            optimizer.step()

            num_steps += 1

            # Only write sample at the first step
            if i == 0:
                grid_img = vutils.make_grid(input_samples,
                                            normalize=True,
                                            scale_each=True)
                writer.add_image('Train/Input', grid_img, epoch)

                grid_img = vutils.make_grid(preds.data.cpu(),
                                            normalize=True,
                                            scale_each=True)
                writer.add_image('Train/Predictions', grid_img, epoch)

                grid_img = vutils.make_grid(gt_samples,
                                            normalize=True,
                                            scale_each=True)
                writer.add_image('Train/Ground Truth', grid_img, epoch)

        train_loss_total_avg = train_loss_total / num_steps
        scheduler.step()
        
        tqdm.write(f"Epoch {epoch} training loss: {train_loss_total_avg:.4f}.")
        if context["loss"]["name"] == 'focal_dice':
            focal_train_loss_total_avg = focal_train_loss_total / num_steps
            log_dice_train_loss_total_avg = dice_train_loss_total / num_steps
            dice_train_loss_total_avg = exp(log_dice_train_loss_total_avg)
            tqdm.write(f"\tFocal training loss: {focal_train_loss_total_avg:.4f}.")
            tqdm.write(f"\tLog Dice training loss: {log_dice_train_loss_total_avg:.4f}.")
            tqdm.write(f"\tDice training loss: {dice_train_loss_total_avg:.4f}.")
        elif context["loss"]["name"] != 'dice':
            dice_train_loss_total_avg = dice_train_loss_total / num_steps
            tqdm.write(f"\tDice training loss: {dice_train_loss_total_avg:.4f}.")

        # Validation loop -----------------------------------------------------
