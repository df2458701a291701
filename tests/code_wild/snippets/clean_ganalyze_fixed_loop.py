# pytorch/train_pytorch.py after the fix for LoreGoetschalckx/GANalyze#7 (zero_grad at the top of each batch)
import numpy as np
import torch
import torch.optim as optim

optimizer = optim.Adam(transformation.parameters(), lr=0.0002)

for batch_start in range(0, num_samples, batch_size):

    # zero the parameter gradients
    optimizer.zero_grad()

    s = slice(batch_start, min(num_samples, batch_start + batch_size))
    z = torch.from_numpy(zs[s]).type(torch.FloatTensor).to(device)
    y = torch.from_numpy(ys[s]).to(device)
    step_sizes = (train_alpha_b - train_alpha_a) * np.random.random(size=(batch_size)) + train_alpha_a
    step_sizes_broadcast = np.repeat(step_sizes, dim_z).reshape([batch_size, dim_z])
    step_sizes_broadcast = torch.from_numpy(step_sizes_broadcast).type(torch.FloatTensor).to(device)

    gan_images = generator(z, utils.pytorch.one_hot(y))
    out_scores = output_transform(assessor(gan_images)).to(device).float()
    target_scores = out_scores + torch.from_numpy(step_sizes).to(device).float()

    z_transformed = transformation.transform(z, utils.pytorch.one_hot(y), step_sizes_broadcast)
    gan_images_transformed = generator(z_transformed, utils.pytorch.one_hot(y))
    out_scores_transformed = output_transform(assessor(gan_images_transformed)).to(device).float()

    loss = transformation.compute_loss(out_scores_transformed, target_scores, batch_start, loss_file)

    loss.backward()
    optimizer.step()

    losses.update(loss.item(), batch_size)
