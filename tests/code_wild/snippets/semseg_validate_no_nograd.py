# validate() of tool/train.py as quoted ("Before") in hszhao/semseg#60
import time


def validate(val_loader, model, criterion):
    model.eval()
    end = time.time()
    for i, (input, target) in enumerate(val_loader):
        data_time.update(time.time() - end)
        input = input.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        output = model(input)
        loss = criterion(output, target)
        n = input.size(0)
        loss_meter.update(loss.item(), n)
