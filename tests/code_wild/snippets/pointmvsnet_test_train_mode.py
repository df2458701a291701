# pointmvsnet/test.py test_model (callmeray/PointMVSNet), issue #16: the model is put in train mode for testing
import logging
import time

import torch


def test_model(model,
               image_scales,
               inter_scales,
               data_loader,
               folder,
               isCPU=False,
               ):
    logger = logging.getLogger("pointmvsnet.train")
    meters = MetricLogger(delimiter="  ")
    model.train()
    end = time.time()
    path_list = []
    with torch.no_grad():
        for iteration, data_batch in enumerate(data_loader):
            data_time = time.time() - end
            curr_ref_img_path = data_batch["ref_img_path"][0]
            path_list.extend(curr_ref_img_path)
            if not isCPU:
                data_batch = {k: v.cuda(non_blocking=True) for k, v in data_batch.items() if isinstance(v, torch.Tensor)}
            preds = model(data_batch, image_scales, inter_scales, isFlow=True, isTest=True)
            batch_time = time.time() - end
            end = time.time()
            meters.update(time=batch_time, data=data_time)
            eval_file_logger(data_batch, preds, curr_ref_img_path, folder)
