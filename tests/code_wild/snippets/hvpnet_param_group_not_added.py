# modules/train.py multiModal_before_train (zjunlp/HVPNeT), issue #5: the crf/fc group is built but never appended
import torch.optim as optim
from transformers.optimization import get_linear_schedule_with_warmup


def multiModal_before_train(self):
    # bert lr
    parameters = []
    params = {'lr':self.args.lr, 'weight_decay':1e-2}
    params['params'] = []
    for name, param in self.model.named_parameters():
        if 'bert' in name:
            params['params'].append(param)
    parameters.append(params)

    # prompt lr
    params = {'lr':self.args.lr, 'weight_decay':1e-2}
    params['params'] = []
    for name, param in self.model.named_parameters():
        if 'encoder_conv' in name or 'gates' in name:
            params['params'].append(param)
    parameters.append(params)

    # crf lr
    params = {'lr':5e-2, 'weight_decay':1e-2}
    params['params'] = []
    for name, param in self.model.named_parameters():
        if 'crf' in name or name.startswith('fc'):
            params['params'].append(param)

    self.optimizer = optim.AdamW(parameters)

    for name, par in self.model.named_parameters(): # freeze resnet
        if 'image_model' in name:   par.requires_grad = False

    self.scheduler = get_linear_schedule_with_warmup(optimizer=self.optimizer,
                                                        num_warmup_steps=self.args.warmup_ratio*self.train_num_steps,
                                                        num_training_steps=self.train_num_steps)
    self.model.to(self.args.device)
