# neural_sp/bin/asr/train.py training loop (hirofumi0810/neural_sp), issue #168: loss not divided by accum_grad_n_steps
import torch

accum_n_steps = 0
n_steps = optimizer.n_steps * args.accum_grad_n_steps
while True:
    batch_train, is_new_epoch = train_set.next()
    accum_n_steps += 1

    for task in tasks:
        loss, observation = model(batch_train, task,
                                  teacher=teacher, teacher_lm=teacher_lm)
        reporter.add(observation)
        loss.backward()
        loss.detach()  # Trancate the graph
        if args.accum_grad_n_steps == 1 or accum_n_steps >= args.accum_grad_n_steps:
            if args.clip_grad_norm > 0:
                total_norm = torch.nn.utils.clip_grad_norm_(
                    model.module.parameters(), args.clip_grad_norm)
                reporter.add_tensorboard_scalar('total_norm', total_norm)
            optimizer.step()
            optimizer.zero_grad()
            accum_n_steps = 0
        loss_train = loss.item()
        del loss

    reporter.step()
    n_steps += 1
    if optimizer.n_epochs == args.n_epochs:
        break
